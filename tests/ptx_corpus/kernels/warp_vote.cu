// Warp votes: __ballot_sync and __popc of the ballot, __any_sync and __all_sync, with every lane
// (including those past n) taking part; lane 0 of each warp writes the results.
#define FULL_MASK 0xffffffffu

extern "C" __global__ void warp_vote(const int* in, int n, unsigned* ballots, int* counts, int* any_positive,
                                     int* all_positive) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool positive = i < n && in[i] > 0;
    unsigned ballot = __ballot_sync(FULL_MASK, positive);
    int any = __any_sync(FULL_MASK, positive);
    int all = __all_sync(FULL_MASK, positive);
    if ((threadIdx.x & 31) == 0 && i < n) {
        int w = i / 32;
        ballots[w] = ballot;
        counts[w] = __popc(ballot);
        any_positive[w] = any;
        all_positive[w] = all;
    }
}
