#pragma once
/// The bench's results: a table on stdout (fmt), and CSV, JSON and a log-log plot on request.

#include <span>
#include <string>

#include "bench/runner.h"

namespace ro::bench {

/// Prints the rows of one scene (same scenario, motion and n) as a table.
void printTable(std::span<const Row> rows);

/// Writes every row; each returns false with `error` set when the file cannot be written.
bool writeCsv(const std::string& path, std::span<const Row> rows, std::string& error);
bool writeJson(const std::string& path, std::span<const Row> rows, std::string& error);
/// Mean ms per frame against n, log-log, one line per technique and peer, one panel per
/// scenario and motion; drawn by gnuplot.
bool writePlot(const std::string& path, std::span<const Row> rows, std::string& error);

}  // namespace ro::bench
