// What a plugin file must show before the dynamic loader runs any of its code (constructors run
// at dlopen): an ELF shared object for this machine, whole (every segment the loader would map
// lies inside the file, so a cut copy cannot raise SIGBUS), that exports cb_plugin_entry in its
// dynamic symbol table. Read with elfutils' libelf by read(), never by a mapping.
#include "internal.hpp"

#include <cudabridge/plugin.h>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cudabridge::core {
namespace {

#if defined(__x86_64__)
constexpr int host_machine = EM_X86_64;
constexpr const char* host_machine_name = "x86-64";
#elif defined(__aarch64__)
constexpr int host_machine = EM_AARCH64;
constexpr const char* host_machine_name = "AArch64";
#else
#error "plugin checks know x86-64 and AArch64 only"
#endif

struct elf_file {
    int fd = -1;
    Elf* elf = nullptr;
    ~elf_file() {
        if (elf) elf_end(elf);
        if (fd >= 0) ::close(fd);
    }
};

std::string libelf_error() { return elf_errmsg(-1) ? elf_errmsg(-1) : "unknown libelf error"; }

std::optional<std::string> header_problem(Elf* e) {
    GElf_Ehdr h;
    if (!gelf_getehdr(e, &h)) return "unreadable ELF header: " + libelf_error();
    if (h.e_ident[EI_CLASS] != (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32))
        return std::string("built for another word size than this ") + host_machine_name + " host";
    if (h.e_ident[EI_VERSION] != EV_CURRENT || h.e_version != EV_CURRENT) return "unknown ELF version";
    if (h.e_machine != host_machine)
        return "built for ELF machine " + std::to_string(h.e_machine) + ", not this " + host_machine_name + " host";
    if (h.e_type != ET_DYN) return "not a shared library (ELF type " + std::to_string(h.e_type) + ")";
    return std::nullopt;
}

// Every segment's bytes must be in the file: the loader maps them, and a page past the end of
// a mapped file faults with SIGBUS when touched.
std::optional<std::string> truncation_problem(Elf* e, int64_t size) {
    size_t count = 0;
    if (elf_getphdrnum(e, &count) != 0) return "unreadable program headers: " + libelf_error();
    if (count == 0) return "no program headers: nothing the loader could map";
    for (size_t i = 0; i < count; ++i) {
        GElf_Phdr p;
        if (!gelf_getphdr(e, static_cast<int>(i), &p)) return "unreadable program header: " + libelf_error();
        if (p.p_offset > static_cast<uint64_t>(size) || p.p_filesz > static_cast<uint64_t>(size) - p.p_offset)
            return "cut short: segment " + std::to_string(i) + " needs bytes up to " +
                   std::to_string(p.p_offset + p.p_filesz) + ", the file has " + std::to_string(size);
    }
    return std::nullopt;
}

bool exports_entry(Elf* e) {
    for (Elf_Scn* scn = elf_nextscn(e, nullptr); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || sh.sh_entsize == 0) continue;
        Elf_Data* data = elf_getdata(scn, nullptr);
        if (!data) return false;
        const size_t symbols = sh.sh_size / sh.sh_entsize;
        for (size_t i = 0; i < symbols; ++i) {
            GElf_Sym s;
            if (!gelf_getsym(data, static_cast<int>(i), &s)) return false;
            const char* name = elf_strptr(e, sh.sh_link, s.st_name);
            const int bind = GELF_ST_BIND(s.st_info);
            if (name && std::strcmp(name, CB_PLUGIN_ENTRY_SYMBOL) == 0 && s.st_shndx != SHN_UNDEF &&
                GELF_ST_TYPE(s.st_info) == STT_FUNC && (bind == STB_GLOBAL || bind == STB_WEAK) &&
                GELF_ST_VISIBILITY(s.st_other) == STV_DEFAULT)
                return true;
        }
    }
    return false;
}

}  // namespace

std::optional<std::string> elf_problem(const std::string& canonical_file, int64_t size) {
    if (elf_version(EV_CURRENT) == EV_NONE) return "libelf cannot read ELF files: " + libelf_error();
    elf_file f;
    f.fd = ::open(canonical_file.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.fd < 0) return "cannot open " + canonical_file + ": " + std::strerror(errno);
    f.elf = elf_begin(f.fd, ELF_C_READ, nullptr);
    if (!f.elf || elf_kind(f.elf) != ELF_K_ELF) return canonical_file + " is not an ELF file";
    if (auto why = header_problem(f.elf)) return why;
    if (auto why = truncation_problem(f.elf, size)) return why;
    if (!exports_entry(f.elf))
        return "its dynamic symbol table does not export " CB_PLUGIN_ENTRY_SYMBOL
               " (not a CudaBridge plugin; nothing of it was run)";
    return std::nullopt;
}

}  // namespace cudabridge::core
