#include "stream_capture.hpp"

#include "errors.hpp"
#include "handles.hpp"
#include "versioned_api.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

using namespace cudabridge::cudart;

namespace {

// The graph a capture makes is a live graph from the start: cudaStreamGetCaptureInfo hands it out,
// and the program may add nodes to it (cudaGraphAddNode) or conditional handles before the end.
struct capture_session {
    std::unique_ptr<CUgraph_st> owned;  // the graph EndCapture hands out
    CUgraph_st* graph = nullptr;        // where nodes go (a caller's graph with BeginCaptureToGraph)
    int mode = cudaStreamCaptureModeGlobal;
    unsigned long long id = 0;
    cbStream_t origin = nullptr;
    bool invalidated = false;

    capture_session() = default;
    capture_session(const capture_session&) = delete;
    capture_session& operator=(const capture_session&) = delete;
    ~capture_session() {
        if (owned) forget_graph(owned.get());
    }
};

struct stream_capture {
    std::shared_ptr<capture_session> session;
    std::vector<CUgraphNode_st*> tips;  // what the stream's next node depends on
};

struct event_mark {
    std::weak_ptr<capture_session> session;
    std::vector<CUgraphNode_st*> tips;
};

std::atomic<int> active{0};  // streams capturing, anywhere
std::mutex mutex;
std::map<cbStream_t, stream_capture>& streams() {
    static auto* s = new std::map<cbStream_t, stream_capture>;
    return *s;
}
std::map<cudaEvent_t, event_mark>& events() {
    static auto* e = new std::map<cudaEvent_t, event_mark>;
    return *e;
}
std::map<void*, std::weak_ptr<graph_allocation>>& allocations() {
    static auto* a = new std::map<void*, std::weak_ptr<graph_allocation>>;
    return *a;
}
std::atomic<unsigned long long> next_id{1};
thread_local int thread_mode = cudaStreamCaptureModeGlobal;

stream_capture* find_locked(cudaStream_t stream) {
    const auto it = streams().find(cb_stream(stream));
    return it == streams().end() ? nullptr : &it->second;
}

void join_locked(cbStream_t s, const std::shared_ptr<capture_session>& session, std::vector<CUgraphNode_st*> tips) {
    auto [it, fresh] = streams().try_emplace(s);
    if (fresh) ++active;
    it->second.session = session;
    it->second.tips = std::move(tips);
}

void end_locked(const std::shared_ptr<capture_session>& session) {
    for (auto it = streams().begin(); it != streams().end();)
        if (it->second.session == session) {
            it = streams().erase(it);
            --active;
        } else {
            ++it;
        }
    std::erase_if(events(), [&](const auto& e) { return e.second.session.lock() == session; });
}

std::vector<CUgraphNode_st*> merged(std::vector<CUgraphNode_st*> a, const std::vector<CUgraphNode_st*>& b) {
    for (auto* n : b)
        if (std::find(a.begin(), a.end(), n) == a.end()) a.push_back(n);
    return a;
}

}  // namespace

namespace cudabridge::cudart {

bool capturing(cudaStream_t stream) {
    if (active.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard lock(mutex);
    return find_locked(stream) != nullptr;
}

bool captured(cudaStream_t stream, std::unique_ptr<CUgraphNode_st> node, cudaError_t& result) {
    if (active.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard lock(mutex);
    stream_capture* c = find_locked(stream);
    if (!c) return false;
    if (c->session->invalidated) {
        result = record(cudaErrorStreamCaptureInvalidated);
        return true;
    }
    CUgraphNode_st* n = c->session->graph->add(std::move(node), c->tips.data(), c->tips.size());
    c->tips = {n};
    result = cudaSuccess;
    return true;
}

bool refused_while_capturing(cudaStream_t stream, const char* what, cudaError_t& result) {
    if (active.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard lock(mutex);
    stream_capture* c = find_locked(stream);
    if (!c) return false;
    c->session->invalidated = true;
    result = fail(cudaErrorStreamCaptureUnsupported,
                  (std::string(what) + " on a capturing stream: the capture is invalidated").c_str());
    return true;
}

bool captured_event_record(cudaEvent_t event, cudaStream_t stream, cudaError_t& result) {
    if (active.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard lock(mutex);
    stream_capture* c = find_locked(stream);
    if (!c) return false;
    events()[event] = {c->session, c->tips};
    result = cudaSuccess;
    return true;
}

bool captured_stream_wait(cudaStream_t stream, cudaEvent_t event, cudaError_t& result) {
    if (active.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard lock(mutex);
    stream_capture* c = find_locked(stream);
    const auto mark = events().find(event);
    const auto session = mark == events().end() ? nullptr : mark->second.session.lock();
    if (session) {  // a point of a capture: the stream joins it there (a fork), or merges (a join)
        if (c && c->session != session) {
            result = fail(cudaErrorStreamCaptureIsolation, "cudaStreamWaitEvent: the event belongs to another capture");
            return true;
        }
        join_locked(cb_stream(stream), session, c ? merged(c->tips, mark->second.tips) : mark->second.tips);
        result = cudaSuccess;
        return true;
    }
    if (!c) return false;
    // An event from outside the capture: the graph waits for it when it runs.
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = cudaGraphNodeTypeWaitEvent;
    node->event = event;
    CUgraphNode_st* n = c->session->graph->add(std::move(node), c->tips.data(), c->tips.size());
    c->tips = {n};
    result = cudaSuccess;
    return true;
}

void remember_graph_allocation(const std::shared_ptr<graph_allocation>& a) {
    std::lock_guard lock(mutex);
    std::erase_if(allocations(), [](const auto& e) { return e.second.expired(); });
    allocations()[a->ptr] = a;
}

std::shared_ptr<graph_allocation> graph_allocation_at(void* ptr) {
    std::lock_guard lock(mutex);
    const auto it = allocations().find(ptr);
    return it == allocations().end() ? nullptr : it->second.lock();
}

}  // namespace cudabridge::cudart

extern "C" {

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                          const cudaGraphEdgeData* /*edges*/, size_t count, int mode) {
    const cbStream_t s = cb_stream(stream);
    if (!s) return fail(cudaErrorStreamCaptureUnsupported, "cudaStreamBeginCapture: the legacy stream cannot capture");
    if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed) return record(cudaErrorInvalidValue);
    if (graph && !live_graph(graph)) return record(cudaErrorInvalidValue);
    std::lock_guard lock(mutex);
    if (streams().count(s)) return fail(cudaErrorIllegalState, "cudaStreamBeginCapture: the stream already captures");
    auto session = std::make_shared<capture_session>();
    if (graph) {
        session->graph = graph;
    } else {
        session->owned = std::make_unique<CUgraph_st>();
        session->graph = session->owned.get();
        accept_graph(session->graph);
    }
    session->mode = mode;
    session->id = next_id++;
    session->origin = s;
    join_locked(s, session, std::vector<CUgraphNode_st*>(dependencies, dependencies + (dependencies ? count : 0)));
    return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, int mode) {
    return cudaStreamBeginCaptureToGraph(stream, nullptr, nullptr, nullptr, 0, mode);
}

// A capture into the caller's graph (cudaStreamBeginCaptureToGraph) may end without asking for it.
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
    std::lock_guard lock(mutex);
    stream_capture* c = find_locked(stream);
    if (!c) return fail(cudaErrorIllegalState, "cudaStreamEndCapture: the stream is not capturing");
    const auto session = c->session;
    if (!graph && session->owned) return record(cudaErrorInvalidValue);
    if (session->origin != cb_stream(stream))
        return fail(cudaErrorStreamCaptureUnmatched, "cudaStreamEndCapture: not the stream that began the capture");
    end_locked(session);
    if (session->invalidated) {
        if (graph) *graph = nullptr;
        return record(cudaErrorStreamCaptureInvalidated);
    }
    if (graph) *graph = session->owned ? adopt_graph(std::move(session->owned)) : session->graph;
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, int* status) {
    if (!status) return record(cudaErrorInvalidValue);
    std::lock_guard lock(mutex);
    const stream_capture* c = find_locked(stream);
    *status = !c                        ? cudaStreamCaptureStatusNone
              : c->session->invalidated ? cudaStreamCaptureStatusInvalidated
                                        : cudaStreamCaptureStatusActive;
    return cudaSuccess;
}

// flags: cudaStreamAddCaptureDependencies (0) or cudaStreamSetCaptureDependencies (1).

cudaError_t cudaThreadExchangeStreamCaptureMode(int* mode) {
    if (!mode || *mode < cudaStreamCaptureModeGlobal || *mode > cudaStreamCaptureModeRelaxed)
        return record(cudaErrorInvalidValue);
    std::swap(*mode, thread_mode);
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t s, int* status) {
    return cudaStreamIsCapturing(per_thread_if_null(s), status);
}
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t s, int mode) {
    return cudaStreamBeginCapture(per_thread_if_null(s), mode);
}
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t s, cudaGraph_t* graph) {
    return cudaStreamEndCapture(per_thread_if_null(s), graph);
}
cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t s, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                               const cudaGraphEdgeData* edges, size_t count, int mode) {
    return cudaStreamBeginCaptureToGraph(per_thread_if_null(s), graph, dependencies, edges, count, mode);
}

}  // extern "C"

cudaError_t cudabridge::cudart::capture_info(cudaStream_t stream, int* status, unsigned long long* id,
                                             cudaGraph_t* graph, const cudaGraphNode_t** dependencies,
                                             const cudaGraphEdgeData** edges, size_t* count) {
    if (!status) return record(cudaErrorInvalidValue);
    std::lock_guard lock(mutex);
    const stream_capture* c = find_locked(stream);
    *status = !c ? cudaStreamCaptureStatusNone
                 : (c->session->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive);
    if (id) *id = c ? c->session->id : 0;
    if (graph) *graph = c ? c->session->graph : nullptr;
    if (dependencies) *dependencies = c && !c->tips.empty() ? c->tips.data() : nullptr;
    if (edges) *edges = nullptr;  // every edge is a full dependency
    if (count) *count = c ? c->tips.size() : 0;
    return cudaSuccess;
}

cudaError_t cudabridge::cudart::update_capture_dependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                            const cudaGraphEdgeData* /*edges*/, size_t count,
                                                            unsigned flags) {
    if (flags > 1 || (count && !dependencies)) return record(cudaErrorInvalidValue);
    std::lock_guard lock(mutex);
    stream_capture* c = find_locked(stream);
    if (!c) return fail(cudaErrorIllegalState, "cudaStreamUpdateCaptureDependencies: the stream is not capturing");
    std::vector<CUgraphNode_st*> given(dependencies, dependencies + count);
    c->tips = flags == 1 ? given : merged(c->tips, given);
    return cudaSuccess;
}
