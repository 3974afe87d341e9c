#include <gtest/gtest.h>

#include <string>

#include "ro/version.h"

TEST(Version, IsTheProjectVersion) {
    EXPECT_STREQ(RO_VERSION_STRING, RO_TEST_PROJECT_VERSION);
    EXPECT_EQ(RO_VERSION_STRING, std::to_string(RO_VERSION_MAJOR) + "." + std::to_string(RO_VERSION_MINOR) + "." +
                                     std::to_string(RO_VERSION_PATCH));
}
