// Tensor-core instructions, which a warp performs together: wmma.mma, mma.sync and ldmatrix. The
// lanes park with their fragments' registers in their records' exchange areas, and the executor
// computes over all 32 (these functions), writing each lane's result registers back there.
//
// Which matrix element a lane's fragment register holds:
// - mma.sync and ldmatrix: as the PTX ISA's figures say (groupID = lane >> 2, threadID_in_group =
//   lane % 4; mma_position below).
// - wmma: the ISA leaves the mapping unspecified (code may only apply the same operation to every
//   element), so the engine uses its own, which wmma.load and wmma.store compute per lane without
//   parking: a fragment of S elements per lane holds, in lane l's slot s, element
//   (l * S + s) mod (rows * cols) of the matrix in row-major order (A: m x k, B: k x n, C and D:
//   m x n). A's and B's f16 fragments hold every element twice (lanes 16..31 repeat 0..15).
#pragma once

#include <cstdint>

namespace cudabridge::nv::ptx {

enum matrix_element : uint32_t {
    matrix_f16 = 0,
    matrix_bf16 = 1,
    matrix_tf32 = 2,  // in 32-bit registers; the low 13 bits of the mantissa are ignored
    matrix_f32 = 3,
    matrix_s32 = 4,
    matrix_s8 = 5,
    matrix_u8 = 6,
    matrix_f64 = 7,  // in 64-bit registers, two words of the exchange area each (low word first)
};

uint32_t element_bits(matrix_element e);  // in a register: 8, 16, 32 or 64

// One wmma.mma or mma.sync: D (m x n) = A (m x k) * B (k x n) + C. Each lane holds a_words,
// b_words and c_words registers of A, B and C, in that order in its exchange area, and receives
// d_words registers of D at its start.
struct matrix_op {
    bool isa_layout = false;  // mma.sync's fragments (true) or the engine's wmma ones
    bool satfinite = false;   // integer results clamped to the 32-bit range
    uint32_t m = 0, n = 0, k = 0;
    matrix_element a = matrix_f16, b = matrix_f16, c = matrix_f32, d = matrix_f32;
    uint32_t a_words = 0, b_words = 0, c_words = 0, d_words = 0;

    uint64_t encode() const;
    static matrix_op decode(uint64_t bits);
};

// The (row, column) of element i (0-based, low to high) of a lane's mma.sync fragment of `which`
// ('a', 'b', or 'c' for C and D); false for a shape the engine does not know.
bool mma_position(const matrix_op& op, char which, uint32_t lane, uint32_t i, uint32_t& row, uint32_t& col);

// D for the lanes whose areas are not null (a lane absent holds zeros). Products of f16, bf16 and
// tf32 are exact in f32; they are added to the accumulator one k after another, from k = 0, in
// D's type: f32 (each sum rounded to nearest), f16 (each sum rounded once to f16) or s32
// (wrapping, or clamped at the end with .satfinite). f64 (m8n8k4) is a fused multiply-add per k,
// from k = 0, rounded to nearest (.rn).
void perform_matrix_mma(const matrix_op& op, uint32_t* const areas[32]);

// ldmatrix.m8n8.b16 of `count` matrices: lanes 8j..8j+7 hold the host addresses of matrix j's
// eight rows (16 bytes each) in their areas' first 8 bytes; lane l receives, in register j,
// row l/4 and columns 2(l%4), 2(l%4)+1 of matrix j (transposed with .trans: rows 2(l%4) and
// 2(l%4)+1 of column l/4), low half first.
void perform_ldmatrix(uint32_t count, bool transpose, uint32_t* const areas[32]);

// stmatrix.m8n8.b16, ldmatrix's inverse: the rows' host addresses as for ldmatrix, then lane l's
// `count` registers from its area's third word on, each stored where ldmatrix would have read it.
void perform_stmatrix(uint32_t count, bool transpose, uint32_t* const areas[32]);

// movmatrix.m8n8.trans.b16: lane l's register (its area's first word) holds row l/4, columns
// 2(l%4) and 2(l%4)+1 of an 8x8 matrix; it receives the same elements of the transpose.
void perform_movmatrix(uint32_t* const areas[32]);

}  // namespace cudabridge::nv::ptx
