// Module-scope __device__ variables: a ticket counter (zero at load, kept across launches) taken
// with atomicAdd, and an initialised table read by every thread.
__device__ unsigned int next_ticket = 0;
__device__ int bias[4] = {10, -20, 30, -40};

extern "C" __global__ void take_tickets(unsigned* tickets, int* biased, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        tickets[i] = atomicAdd(&next_ticket, 1u);
        biased[i] = i + bias[i & 3];
    }
}
