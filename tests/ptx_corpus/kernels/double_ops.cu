// Elementwise double: multiply-add, absolute value and a correctly rounded division, with the
// scalars as .f64 parameters.
extern "C" __global__ void damped_axpy(int n, double a, double b, const double* x, double* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        y[i] = a * v + v / (1.0 + b * fabs(v));
    }
}
