#pragma once
/// Every technique, as a table: ro::techniques(), ro::findTechnique("hshg")->create().
#include "ro/broadphase/registry.h"
