// Connection sessions: the lifecycle, state validation, which session is "open", listing, and two
// store objects on one file seeing each other's writes.
#include "store_test_util.hpp"

#include <cudabridge/core/error.hpp>

using namespace cudabridge::core;
using namespace cb_store_test;

namespace {

cb_status status_of(const std::function<void()>& body) {
    try {
        body();
    } catch (const error& e) {
        return e.status();
    }
    return CB_OK;
}

std::vector<int64_t> ids_of(const std::vector<session_row>& rows) {
    std::vector<int64_t> ids;
    for (const auto& r : rows) ids.push_back(r.id);
    return ids;
}

class StoreSessions : public ::testing::Test {
protected:
    temp_dir dir;
    store s{dir.db()};
};

}  // namespace

TEST_F(StoreSessions, Lifecycle) {
    int64_t id = begin_session(s, "d1", R"({"link":"tb4"})");
    EXPECT_GT(id, 0);
    auto row = find_session(s, id);
    ASSERT_TRUE(row);
    EXPECT_EQ(row->device_id, "d1");
    EXPECT_GT(row->started_ns, 0);
    EXPECT_FALSE(row->ended_ns);
    EXPECT_EQ(row->state, "connected");
    EXPECT_EQ(row->reason, "");
    EXPECT_EQ(row->data_json, R"({"link":"tb4"})");

    update_session(s, id, "lost", "link down");
    row = find_session(s, id);
    EXPECT_EQ(row->state, "lost");
    EXPECT_EQ(row->reason, "link down");
    EXPECT_FALSE(row->ended_ns) << "an update does not end the session";
    update_session(s, id, "connected", "reconnected");
    EXPECT_EQ(find_session(s, id)->state, "connected");

    end_session(s, id, "disconnected", "user request");
    row = find_session(s, id);
    ASSERT_TRUE(row->ended_ns);
    EXPECT_GE(*row->ended_ns, row->started_ns);
    EXPECT_EQ(row->state, "disconnected");
    EXPECT_EQ(row->reason, "user request");
    EXPECT_EQ(row->data_json, R"({"link":"tb4"})");

    // The end is final: ending again and updating change nothing.
    const auto ended = *row;
    end_session(s, id, "failed", "second end");
    update_session(s, id, "lost", "late update");
    row = find_session(s, id);
    EXPECT_EQ(row->ended_ns, ended.ended_ns);
    EXPECT_EQ(row->state, "disconnected");
    EXPECT_EQ(row->reason, "user request");

    EXPECT_FALSE(find_session(s, id + 100));
}

TEST_F(StoreSessions, StatesAndIdsAreValidated) {
    int64_t id = begin_session(s, "d1");
    EXPECT_EQ(status_of([&] { update_session(s, id, "sleeping", ""); }), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(status_of([&] { update_session(s, id, "", ""); }), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(status_of([&] { end_session(s, id, "connected", ""); }), CB_ERR_INVALID_ARGUMENT)
        << "a session cannot end still connected";
    EXPECT_EQ(status_of([&] { end_session(s, id, "gone", ""); }), CB_ERR_INVALID_ARGUMENT);
    EXPECT_FALSE(find_session(s, id)->ended_ns);

    EXPECT_EQ(status_of([&] { update_session(s, id + 1, "lost", ""); }), CB_ERR_NOT_FOUND);
    EXPECT_EQ(status_of([&] { end_session(s, id + 1, "lost", ""); }), CB_ERR_NOT_FOUND);
    EXPECT_EQ(status_of([&] { begin_session(s, ""); }), CB_ERR_INVALID_ARGUMENT);

    for (const char* final_state : {"disconnected", "failed", "lost", "refused"}) {
        int64_t other = begin_session(s, "d2");
        end_session(s, other, final_state, "");
        EXPECT_EQ(find_session(s, other)->state, final_state);
    }
}

TEST_F(StoreSessions, OpenSessionIsTheNewestNotEnded) {
    EXPECT_FALSE(open_session(s, "d1"));
    int64_t a = begin_session(s, "d1");
    int64_t b = begin_session(s, "d1");
    int64_t other = begin_session(s, "d2");
    int64_t c = begin_session(s, "d1");
    end_session(s, c, "failed", "handshake");

    auto open = open_session(s, "d1");
    ASSERT_TRUE(open);
    EXPECT_EQ(open->id, b) << "c is newer but ended";
    EXPECT_EQ(open_session(s, "d2")->id, other);

    end_session(s, b, "disconnected", "");
    EXPECT_EQ(open_session(s, "d1")->id, a);
    end_session(s, a, "disconnected", "");
    EXPECT_FALSE(open_session(s, "d1"));
    EXPECT_FALSE(open_session(s, "d3"));
}

TEST_F(StoreSessions, ListsNewestFirst) {
    int64_t a = begin_session(s, "d1");
    int64_t b = begin_session(s, "d2");
    int64_t c = begin_session(s, "d1");
    int64_t d = begin_session(s, "d1");
    EXPECT_EQ(ids_of(list_sessions(s)), (std::vector<int64_t>{d, c, b, a}));
    EXPECT_EQ(ids_of(list_sessions(s, "d1")), (std::vector<int64_t>{d, c, a}));
    EXPECT_EQ(ids_of(list_sessions(s, "d1", 2)), (std::vector<int64_t>{d, c}));
    EXPECT_EQ(ids_of(list_sessions(s, "", 0)).size(), 4u) << "0 = no limit";
    EXPECT_TRUE(list_sessions(s, "d9").empty());
}

TEST_F(StoreSessions, SessionsOutliveForgottenDevices) {
    remember_device(s, "d1", "A", "v");
    int64_t id = begin_session(s, "d1");
    end_session(s, id, "disconnected", "");
    EXPECT_TRUE(forget_device(s, "d1"));
    EXPECT_TRUE(find_session(s, id)) << "sessions are history";
}

TEST_F(StoreSessions, TwoStoresOnOneFileSeeEachOther) {
    store other(dir.db());
    int64_t id = begin_session(s, "d1");
    auto open = open_session(other, "d1");
    ASSERT_TRUE(open);
    EXPECT_EQ(open->id, id);

    end_session(other, id, "lost", "surprise removal");
    EXPECT_FALSE(open_session(s, "d1"));
    EXPECT_EQ(find_session(s, id)->reason, "surprise removal");

    int64_t next = begin_session(other, "d1");
    EXPECT_GT(next, id);
    EXPECT_EQ(ids_of(list_sessions(s, "d1")), (std::vector<int64_t>{next, id}));
}
