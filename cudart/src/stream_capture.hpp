// Stream capture: between cudaStreamBeginCapture and cudaStreamEndCapture, the work a program
// queues on a capturing stream becomes nodes of a graph instead of running. A stream's nodes
// depend on what that stream captured last; an event recorded on a capturing stream carries that
// point to the streams that wait on it, which join the capture (fork and join, as CUDA's).
#pragma once

#include "graph.hpp"

#include <memory>

namespace cudabridge::cudart {

// When `stream` is capturing: adds `node` after the stream's last captured work, sets `result`
// and returns true. False when it is not (then the caller runs the work). One atomic read when
// nothing captures anywhere.
bool captured(cudaStream_t stream, std::unique_ptr<CUgraphNode_st> node, cudaError_t& result);
bool capturing(cudaStream_t stream);
// For what cannot be captured (a synchronization, a callback): when `stream` is capturing, the
// capture is invalidated and `result` is cudaErrorStreamCaptureUnsupported.
bool refused_while_capturing(cudaStream_t stream, const char* what, cudaError_t& result);
// cudaEventRecord on a capturing stream marks the stream's place; cudaStreamWaitEvent on such an
// event joins the waiting stream to the capture (or, for a capturing stream and an event from
// outside it, captures a wait node). True when capture took the call.
bool captured_event_record(cudaEvent_t event, cudaStream_t stream, cudaError_t& result);
bool captured_stream_wait(cudaStream_t stream, cudaEvent_t event, cudaError_t& result);

// Device memory a graph allocated (cudaMallocAsync while capturing, an allocation node), so that
// a free of it inside or outside a graph keeps it for the graph's lifetime.
void remember_graph_allocation(const std::shared_ptr<graph_allocation>& a);
std::shared_ptr<graph_allocation> graph_allocation_at(void* ptr);

}  // namespace cudabridge::cudart
