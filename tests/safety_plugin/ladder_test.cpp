// The ladder: one rung up per failed attempt, never past reconnect.
#include "policy/ladder.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

namespace sf = cudabridge::plugins::safety;

TEST(SafetyLadder, ClimbsOneRungPerAttemptUpToReconnect) {
    EXPECT_EQ(sf::climb(CB_ACTION_SOFT_RESET, 0), CB_ACTION_SOFT_RESET);
    EXPECT_EQ(sf::climb(CB_ACTION_SOFT_RESET, 1), CB_ACTION_HARD_RESET);
    EXPECT_EQ(sf::climb(CB_ACTION_SOFT_RESET, 2), CB_ACTION_RECONNECT);
    EXPECT_EQ(sf::climb(CB_ACTION_SOFT_RESET, 9), CB_ACTION_RECONNECT);
    EXPECT_EQ(sf::climb(CB_ACTION_HARD_RESET, 0), CB_ACTION_HARD_RESET);
    EXPECT_EQ(sf::climb(CB_ACTION_HARD_RESET, 1), CB_ACTION_RECONNECT);
    EXPECT_EQ(sf::climb(CB_ACTION_RECONNECT, 0), CB_ACTION_RECONNECT);
    EXPECT_EQ(sf::climb(CB_ACTION_RECONNECT, 3), CB_ACTION_RECONNECT);
    EXPECT_EQ(sf::climb(CB_ACTION_SOFT_RESET, UINT32_MAX), CB_ACTION_RECONNECT);
}

TEST(SafetyLadder, EveryActionHasItsOwnPhrase) {
    std::set<std::string> seen;
    for (cb_safety_action a = CB_ACTION_NONE; a <= CB_ACTION_RESUME; ++a)
        EXPECT_TRUE(seen.insert(sf::action_phrase(a)).second) << a;
}
