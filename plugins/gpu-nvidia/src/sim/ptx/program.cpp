#include "sim/ptx/program.hpp"

#include "sim/ptx/inline_calls.hpp"
#include "sim/ptx/link_units.hpp"

#include "sim/ptx/parser.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

namespace cudabridge::nv::ptx {
namespace {

std::string describe(const param_slot& p, size_t i) { return "parameter " + std::to_string(i) + " (" + p.name + ")"; }

template <typename T>
void put(std::vector<uint8_t>& out, uint32_t offset, T v) {
    std::memcpy(out.data() + offset, &v, sizeof v);
}

// A scalar argument narrowed to the parameter's type; false when it does not fit.
bool narrow(const cb_kernel_arg& a, const param_slot& p, std::vector<uint8_t>& out, std::string& why) {
    const scalar_type t = p.type;
    const bool is_float_arg = a.type == CB_ARG_FLOAT64;
    if (t.is_float()) {
        double v = is_float_arg ? a.value.f64 : a.type == CB_ARG_UINT64 ? double(a.value.u64) : double(a.value.i64);
        if (t.bits == 64) return put(out, p.offset, v), true;
        if (t.bits == 32) {
            if (std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max())
                return why = "is too large for .f32", false;
            return put(out, p.offset, static_cast<float>(v)), true;
        }
        if (t.bits == 16) {
            if (std::isfinite(v) && std::fabs(v) > 65504.0) return why = "is too large for .f16", false;
            const _Float16 h = static_cast<_Float16>(v);
            return put(out, p.offset, h), true;
        }
        return why = "has an unsupported type", false;
    }
    if (is_float_arg) return why = "is a float where an integer or pointer is expected", false;
    const int bits = t.bits;
    if (a.type == CB_ARG_DEVICE_PTR && bits != 64)
        return why = "is a pointer where a " + std::to_string(bits) + "-bit value is expected", false;
    // Representable in the parameter's width: a negative value as its two's complement (nvcc
    // declares int parameters .u32), a non-negative one within the type's range. Any value fits
    // 64 bits.
    const bool negative = a.type == CB_ARG_INT64 && a.value.i64 < 0;
    const uint64_t u = a.value.u64;
    if (bits < 64) {
        const bool fits = negative ? a.value.i64 >= -(int64_t(1) << (bits - 1))
                                   : u <= (uint64_t(1) << (t.is_signed() ? bits - 1 : bits)) - 1;
        if (!fits)
            return why = "value " + (negative ? std::to_string(a.value.i64) : std::to_string(u)) + " does not fit ." +
                         (t.is_signed()                    ? "s"
                          : t.k == scalar_type::kind::uint ? "u"
                                                           : "b") +
                         std::to_string(bits),
                   false;
    }
    std::memcpy(out.data() + p.offset, &u, static_cast<size_t>(bits / 8));
    return true;
}

}  // namespace

std::unique_ptr<program> program::load(std::string_view text, std::string& error, cb_status* status) {
    cb_status ignored = CB_OK;
    cb_status& st = status ? *status : ignored;
    st = CB_ERR_INVALID_ARGUMENT;
    // A program built with -rdc may bring several translation units (link_units.hpp).
    const std::vector<std::string_view> unit_texts = translation_units(text);
    std::vector<module> units;
    for (size_t u = 0; u < unit_texts.size(); ++u) {
        parse_result parsed = parse(unit_texts[u]);
        if (!parsed.ok) {
            error = "PTX " + (unit_texts.size() > 1 ? "(translation unit " + std::to_string(u + 1) + ") " : "") +
                    parsed.error;
            return nullptr;
        }
        units.push_back(std::move(parsed.mod));
    }
    st = CB_ERR_UNSUPPORTED;
    std::unique_ptr<program> p(new program());
    if (units.size() == 1) {
        p->mod_ = std::move(units.front());
    } else if (std::string why; !link_units(units, p->mod_, why)) {
        error = "PTX: linking translation units: " + why;
        return nullptr;
    }
    inline_parking_calls(p->mod_);
    layout_result laid = lay_out(p->mod_);
    if (!laid.ok) {
        error = "PTX " + laid.error;
        return nullptr;
    }
    p->layout_ = std::move(laid.layout);
    for (const kernel_layout& k : p->layout_.kernels) p->kernel_param_bytes_.push_back(k.param_bytes);
    if (p->layout_.kernels.empty()) {
        st = CB_ERR_INVALID_ARGUMENT;
        error = "PTX: the module has no kernel (.entry)";
        return nullptr;
    }
    std::string why;
    const auto started = std::chrono::steady_clock::now();
    if (!check_lowering(p->mod_, p->layout_, why)) {
        error = "PTX " + why;
        return nullptr;
    }
    p->lowering_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    p->const_base_ = (p->layout_.globals_init.size() + 15) / 16 * 16;
    p->own_symbols_ = p->initial_symbols();
    st = CB_OK;
    return p;
}

block_function program::code_for(size_t kernel, const block_shape& shape, std::string& error) const {
    std::lock_guard lock(compile_mutex_);
    size_t shapes = 0;
    const compiled_entry* any = nullptr;
    for (const auto& e : compiled_) {
        if (e.kernel != kernel) continue;
        if (e.any_shape) {
            any = &e;
        } else if (e.shape == shape) {
            return e.code->function();
        } else {
            ++shapes;
        }
    }
    if (any) return any->code->function();
    const bool any_shape = shapes >= shapes_per_kernel;
    auto code = compiled_kernel::compile(mod_, layout_, kernel, any_shape ? nullptr : &shape, error);
    if (!code) return nullptr;
    const block_function fn = code->function();
    compiled_.push_back({kernel, any_shape, shape, std::move(code)});
    return fn;
}

size_t program::compiled_count() const {
    std::lock_guard lock(compile_mutex_);
    return compiled_.size();
}

double program::compile_ms() const {
    std::lock_guard lock(compile_mutex_);
    double ms = lowering_ms_;
    for (const auto& e : compiled_) ms += e.code->compile_ms();
    return ms;
}

std::vector<uint8_t> program::initial_symbols() const {
    std::vector<uint8_t> bytes(symbol_bytes(), 0);
    std::copy(layout_.globals_init.begin(), layout_.globals_init.end(), bytes.begin());
    std::copy(layout_.const_init.begin(), layout_.const_init.end(),
              bytes.begin() + static_cast<ptrdiff_t>(const_base_));
    return bytes;
}

bool program::find_symbol(const std::string& name, module_symbol& out) const {
    for (const auto& v : mod_.globals) {
        if (v.name != name) continue;
        if (auto g = layout_.global_offsets.find(name); g != layout_.global_offsets.end())
            return out = {g->second, v.size_bytes()}, true;
        if (auto c = layout_.const_offsets.find(name); c != layout_.const_offsets.end())
            return out = {const_base_ + c->second, v.size_bytes()}, true;
    }
    return false;
}

int program::find(const std::string& name) const {
    for (size_t i = 0; i < layout_.kernels.size(); ++i)
        if (layout_.kernels[i].name == name) return static_cast<int>(i);
    return -1;
}

std::string program::kernel_names() const {
    std::string s;
    for (const auto& k : layout_.kernels) s += (s.empty() ? "" : ", ") + k.name;
    return s;
}

cb_status program::pack_arguments(size_t kernel, const cb_kernel_arg* args, size_t count, std::vector<uint8_t>& out,
                                  std::string& error) const {
    const kernel_layout& k = layout_.kernels.at(kernel);
    if (count != k.params.size()) {
        error = "launch_kernel " + k.name + ": " + std::to_string(count) + " arguments for " +
                std::to_string(k.params.size()) + " parameters";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (count && !args) {
        error = "launch_kernel " + k.name + ": arguments are NULL";
        return CB_ERR_INVALID_ARGUMENT;
    }
    out.assign(k.param_bytes, 0);
    for (size_t i = 0; i < count; ++i) {
        const param_slot& p = k.params[i];
        const cb_kernel_arg& a = args[i];
        std::string why;
        if (p.is_array) {
            if (a.type != CB_ARG_BYTES || a.size != p.size || !a.value.bytes) {
                error = "launch_kernel " + k.name + ": " + describe(p, i) + " is a struct of " +
                        std::to_string(p.size) + " bytes; pass CB_ARG_BYTES of that size";
                return CB_ERR_INVALID_ARGUMENT;
            }
            std::memcpy(out.data() + p.offset, a.value.bytes, p.size);
            continue;
        }
        if (a.type == CB_ARG_BYTES) {
            if (a.size != p.size || !a.value.bytes) {
                error = "launch_kernel " + k.name + ": " + describe(p, i) + " takes " + std::to_string(p.size) +
                        " bytes, not " + std::to_string(a.size);
                return CB_ERR_INVALID_ARGUMENT;
            }
            std::memcpy(out.data() + p.offset, a.value.bytes, p.size);
            continue;
        }
        if (a.type != CB_ARG_DEVICE_PTR && a.type != CB_ARG_INT64 && a.type != CB_ARG_UINT64 &&
            a.type != CB_ARG_FLOAT64) {
            error =
                "launch_kernel " + k.name + ": " + describe(p, i) + ": unknown argument type " + std::to_string(a.type);
            return CB_ERR_INVALID_ARGUMENT;
        }
        if (!narrow(a, p, out, why)) {
            error = "launch_kernel " + k.name + ": " + describe(p, i) + " " + why;
            return CB_ERR_INVALID_ARGUMENT;
        }
    }
    return CB_OK;
}

bool program::param_info(size_t kernel, uint32_t index, uint64_t& offset, uint64_t& size) const {
    const kernel_layout& k = layout_.kernels.at(kernel);
    if (index >= k.params.size()) return false;
    offset = k.params[index].offset;
    size = k.params[index].size;
    return true;
}

cb_status program::pack_parameters(size_t kernel, void* const* params, std::vector<uint8_t>& out,
                                   std::string& error) const {
    const kernel_layout& k = layout_.kernels.at(kernel);
    out.assign(k.param_bytes, 0);
    if (!k.params.empty() && !params) {
        error =
            "launch_kernel " + k.name + ": kernelParams is NULL for " + std::to_string(k.params.size()) + " parameters";
        return CB_ERR_INVALID_ARGUMENT;
    }
    for (size_t i = 0; i < k.params.size(); ++i) {
        const param_slot& p = k.params[i];
        if (!params[i]) {
            error = "launch_kernel " + k.name + ": " + describe(p, i) + ": its kernelParams pointer is NULL";
            return CB_ERR_INVALID_ARGUMENT;
        }
        std::memcpy(out.data() + p.offset, params[i], p.size);
    }
    return CB_OK;
}

}  // namespace cudabridge::nv::ptx
