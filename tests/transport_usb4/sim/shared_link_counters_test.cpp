// One enclosure's link counters, shared by every process through a small mapped file: what one
// opener publishes, another reads; the recent error rate is the last completed window's.
#include "sim/shared_link_counters.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

namespace cudabridge::usb4 {
namespace {

constexpr uint64_t second = shared_link_counters::window_ns;

class shared_link_counters_test : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() / ("cb-link-counters-" + std::to_string(std::random_device{}()));
        std::filesystem::create_directories(dir_);
        path_ = link_counters_path(dir_, "enclosure-1");
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    static link_traffic traffic(uint64_t packets, uint64_t crc_errors) {
        link_traffic t;
        t.packets = packets;
        t.crc_errors = crc_errors;
        t.replays = crc_errors;
        t.bytes_to_device = packets * 256;
        return t;
    }

    std::filesystem::path dir_, path_;
};

TEST_F(shared_link_counters_test, WhatOneOpenerPublishesAnotherReads) {
    shared_link_counters first(path_), second_opener(path_);
    first.publish(traffic(1000, 20), 10 * second);
    second_opener.publish(traffic(500, 5), 10 * second);
    const shared_link_totals t = first.read();
    EXPECT_EQ(t.total.packets, 1500u);
    EXPECT_EQ(t.total.crc_errors, 25u);
    EXPECT_EQ(t.total.replays, 25u);
    EXPECT_EQ(t.total.bytes_to_device, 1500u * 256);
    EXPECT_EQ(second_opener.read().total.packets, 1500u);
}

TEST_F(shared_link_counters_test, TheTotalsOutliveTheirOpeners) {
    { shared_link_counters(path_).publish(traffic(7, 1), second); }
    EXPECT_EQ(shared_link_counters(path_).read().total.packets, 7u);
}

TEST_F(shared_link_counters_test, TheRecentRateSpansThisWindowAndTheOneBefore) {
    shared_link_counters c(path_);
    c.publish({}, 100 * second);  // the first look opens a window
    c.publish(traffic(980, 20), 100 * second + second / 2);
    EXPECT_DOUBLE_EQ(c.read().recent_error_rate, 20.0 / 1000.0) << "CRC failures per packet sent, open window";
    c.publish({}, 101 * second);  // a second later: a new window
    EXPECT_DOUBLE_EQ(c.read().recent_error_rate, 20.0 / 1000.0) << "the window before still counts";
    c.publish(traffic(1000, 0), 101 * second + second / 2);
    EXPECT_DOUBLE_EQ(c.read().recent_error_rate, 20.0 / 2000.0);
    c.publish({}, 101 * second + second / 2 + 10);
    EXPECT_DOUBLE_EQ(c.read().recent_error_rate, 20.0 / 2000.0) << "no new window before a second";
    c.publish({}, 102 * second);
    EXPECT_EQ(c.read().recent_error_rate, 0.0) << "two windows later the errors are out";
}

TEST_F(shared_link_counters_test, ANamePathCannotLeaveTheFolder) {
    EXPECT_EQ(link_counters_path(dir_, "../../etc/x").parent_path(), dir_);
    EXPECT_EQ(link_counters_path(dir_, "a/b").filename(), "usb4-link-a_b.counters");
}

TEST_F(shared_link_counters_test, AFileThatIsNotOursIsRefused) {
    std::ofstream(path_) << "not a counters file";
    EXPECT_THROW(shared_link_counters{path_}, std::runtime_error);
    std::filesystem::remove(path_);
    std::filesystem::create_directory(path_);
    EXPECT_THROW(shared_link_counters{path_}, std::runtime_error);
}

TEST(crc_failure_rate, IsTheShareOfSendsThatFailed) {
    EXPECT_EQ(crc_failure_rate(0, 0), 0.0);
    EXPECT_DOUBLE_EQ(crc_failure_rate(99, 1), 0.01);
    EXPECT_EQ(crc_failure_rate(0, 5), 1.0) << "nothing got through";
}

}  // namespace
}  // namespace cudabridge::usb4
