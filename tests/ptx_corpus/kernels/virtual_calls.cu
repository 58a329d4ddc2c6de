// Virtual functions and function pointers: each thread builds one of three shapes behind a base
// pointer (a factory nvcc cannot see through, so the calls go through the vtable) and asks it
// for its area and number of sides; then folds two values with an operation picked from a table
// of function pointers in a .global variable (an initializer of function addresses).
#include <new>

struct shape {
    __device__ virtual ~shape() {}
    __device__ virtual float area() const = 0;
    __device__ virtual int sides() const { return 0; }
};

struct square : shape {
    float s;
    __device__ explicit square(float side) : s(side) {}
    __device__ float area() const override { return s * s; }
    __device__ int sides() const override { return 4; }
};

struct disc : shape {
    float r;
    __device__ explicit disc(float radius) : r(radius) {}
    __device__ float area() const override { return 3.25f * r * r; }
};

struct triangle : shape {
    float b, h;
    __device__ triangle(float base, float height) : b(base), h(height) {}
    __device__ float area() const override { return 0.5f * b * h; }
    __device__ int sides() const override { return 3; }
};

__device__ __noinline__ shape* make_shape(int kind, float v, void* room) {
    if (kind == 0) return new (room) square(v);
    if (kind == 1) return new (room) disc(v);
    return new (room) triangle(v, v + 1.0f);
}

typedef float (*fold_op)(float, float);
__device__ float add_op(float a, float b) { return a + b; }
__device__ float mul_op(float a, float b) { return a * b; }
__device__ float max_op(float a, float b) { return a > b ? a : b; }
__device__ fold_op fold_ops[3] = {add_op, mul_op, max_op};

extern "C" __global__ void virtual_calls(const float* x, float* area, int* sides, float* folded, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    alignas(16) char room[32];
    shape* s = make_shape(i % 3, x[i], room);
    area[i] = s->area();
    sides[i] = s->sides();
    s->~shape();
    folded[i] = fold_ops[(i / 3) % 3](x[i], 2.0f);
}
