#!/usr/bin/env bash
# cuda-samples.sh: build NVIDIA's cuda-samples that need only the CUDA runtime, or also the CUDA
# driver API and NVRTC, and run each one on CudaBridge's eGPU (`cudabridge-cli run`), then print
# what passed and what did not and why.
# A tool for people, not part of CI or of the test suite.
#
#   scripts/cuda-samples.sh CUDA_SAMPLES_DIR [NAME...]
#
# CUDA_SAMPLES_DIR is a checkout of https://github.com/NVIDIA/cuda-samples (the CUDA 13 branch;
# its top folder, or its Samples/ folder). NAME restricts the run to those samples: a sample's
# folder name (vectorAdd), its CMake target name, or its path under Samples/
# (0_Introduction/vectorAdd). Without NAME every sample is listed, and those that need only the
# CUDA runtime (group "runtime") or also the driver API, NVRTC or a module file of their own
# (group "driver") are built and run.
#
# Environment:
#   CUDA_SAMPLES_TIMEOUT  seconds a sample may run (default 600); past it the sample is killed
#                         (its whole process group) and counted as failed ("timeout")
#   CUDA_SAMPLES_OUT      folder for the build and run logs (default: a new mktemp -d folder)
#   CUDABRIDGE_CLI        the cudabridge-cli to run the samples with (default: build/bin/
#                         cudabridge-cli of the repository this script is in)
#   NVCC                  the nvcc to build with (default: nvcc on PATH, else $CUDA_HOME/bin/nvcc,
#                         else /usr/local/cuda/bin/nvcc)
#   CUDA_HOME             the toolkit the driver group links with (lib64/stubs/libcuda.so,
#                         lib64/libnvrtc.so) and takes include files from (default: the folder
#                         above nvcc's bin/)
#   CUDABRIDGE_CUDART_VERBOSE  set to 1 for the runs unless already set: CudaBridge's libcudart
#                         and libcuda then print on stderr why each failing CUDA call failed (in the
#                         run log)
#   CUDA_SAMPLES_LIST=1   only list the samples and what the filter decided (group, architecture,
#                         sources, what a driver-group sample links and builds, or why skipped);
#                         build and run nothing
#
# Which samples run. Each sample folder has a CMakeLists.txt with one add_executable(); the
# script reads it, as CMake would on x86-64 Linux, and puts the sample in one of two groups:
#   runtime  it needs only the CUDA runtime;
#   driver   it needs, besides, any of: the CUDA driver API (CUDA::cuda_driver or ${CUDA_LIB}),
#            NVRTC (CUDA::nvrtc), a .ptx/.fatbin/.cubin file of its own that the program loads
#            (built by an add_custom_command() running nvcc -ptx/-fatbin/-cubin);
# or skips it (saying why) when:
#   - the add_executable() is reachable only on another platform: inside if(WIN32)/if(MSVC), or a
#     branch for aarch64, QNX or cross-compiling; or the sample is under 8_Platform_Specific/
#     (Samples/CMakeLists.txt adds it only with BUILD_TEGRA);
#   - the file names another library: CUDA::cublas*, cufft*, curand*, cusparse*, cusolver*, npp*,
#     nvjpeg*, nvJitLink, libNVVM (NVVM_LIB) or LLVM, OpenGL/GLUT/GLEW/GLES, EGL, X11,
#     Vulkan/GLFW, MPI, NvSci, NvMedia, cuDLA, FreeImage, libdrm (found anywhere in the file,
#     comments stripped: the samples test each with find_package()/find_library() and build only
#     where it is found);
#   - it builds its .ptx/.fatbin/.cubin file in a way the script does not read
#     (CUDA_PTX/FATBIN/CUBIN_COMPILATION, or a custom command whose -o file or .cu source, after
#     the file's set() variables, is not a plain name in the build and source folders).
# Header-only libraries of the toolkit (Thrust, CUB, cooperative groups, libcu++) are fine.
# OpenMP (OpenMP::OpenMP_CXX, the host compiler's runtime) is allowed: such a sample gets
# -Xcompiler -fopenmp.
#
# How a sample is built: one nvcc command over the .cu/.cpp/.c files its add_executable() names:
#   nvcc -O2 -cudart shared -gencode arch=compute_XX,code=[compute_XX,sm_XX] -I <samples>/Common
#        [-I <the sample's own include folders>] [--extended-lambda] -o <out>/<sample>/<target>
# XX is 75, or higher when the sample asks for more: the lowest architecture of its CMakeLists'
# CMAKE_CUDA_ARCHITECTURES / CUDA_ARCHITECTURES lists, and the lowest "SM x.y" of the "Supported
# SM Architectures" section of its README.md (the CUDA 13 samples list 75 and up in every
# CMakeLists.txt, and say only in the README that the bf16/tf32/dmma tensor-core GEMMs need
# SM 8.0; built for 75 their kernels would compile to nothing). A sample that fails to compile
# because it needs relocatable device code (dynamic parallelism) is built again with -rdc=true
# (CMake builds every sample with CUDA_SEPARABLE_COMPILATION ON), and its BUILD column says rdc;
# nvlink's device-linked output is machine code only, so CudaBridge's simulated GPU, which runs
# PTX, refuses it (the diagnosis below says so).
# A driver-group sample also links -L $CUDA_HOME/lib64/stubs -lcuda (the toolkit's stub: at run
# time `run` puts CudaBridge's libcuda.so.1 on the loader path) and, for NVRTC, -lnvrtc -Xlinker
# -rpath -Xlinker $CUDA_HOME/lib64. Its module file is built first from the custom command's
# kernel source (CUDA_KERNEL_SOURCE or the .cu it names), with the same XX and -I flags:
#   nvcc -fatbin -gencode arch=compute_XX,code=[compute_XX,sm_XX]  (CMake's is sm_XX only: no PTX)
#   nvcc -ptx -arch=compute_XX
#   nvcc -cubin -arch=sm_XX  (machine code, as CMake builds it: the simulated GPU refuses it)
# into <out>/<sample>/<its -o file name> (CUDA_FATBIN_FILE, CUDA_PTX_FILE...), then copied into
# the sample's own folder, its run folder: the samples look for it in the working folder (./,
# ./data/: sdkFindFilePath), not beside the executable. What a POST_BUILD command copies into
# CMake's build folder from the toolkit's include folder (headers an NVRTC program compiles
# with) is linked into the run folder (ln -s; never over a file of the sample's own).
#
# How a sample is run: from its own folder (the samples find their data files relative to the
# working folder: ./, ./data/), so a sample may write its output files there as it would in
# CMake's build folder; stdin is /dev/null; each run gets a fresh CUDABRIDGE_HOME (mktemp -d,
# kept as <out>/<sample>/home.*: its cudabridge.db holds the run's log records and events), so
# no two runs share state:
#   cd <sample> && CUDABRIDGE_HOME=<new> timeout $CUDA_SAMPLES_TIMEOUT cudabridge-cli run -- <exe>
# (under stdbuf -oL, so that a sample that aborts keeps the stdout it printed).
# It passes when it exits 0 and its output has none of "FAILED", "Result = FAIL" and "Test
# failed" (some samples, reduction for one, print that last and still exit 0). Exit code 2
# is NVIDIA's EXIT_WAIVED (the sample decided it cannot run here) when its output says so: "waiv",
# or that the device does not support what the sample needs (vectorAddMMAP: "doesn't support
# VIRTUAL ADDRESS MANAGEMENT"; memMapIPCDrv: "No CUDA devices support IPC"); that is counted as
# skipped, with the sample's reason. A run that fails with a loader error about
# libcudart/libcuda/libcudabridge (the library being rebuilt meanwhile) is run once more. When a failed
# run says "no kernel image for the device" (what a program hears when CudaBridge refuses a
# module), the executable's fatbins are loaded once more through the Python package
# (build/venv) to name the refused PTX instruction and its line (see ptx_diagnosis below); for a
# module the program loads itself CudaBridge's libcuda says why on stderr, and the reason begins
# "module refused:". A failed run's reason also names the CUDA functions CudaBridge's libcuda or
# libcudart said on stderr they do not support ("[not supported by CudaBridge: ...]").
#
# Output: a table row per sample as it finishes (sample, group, build, exit code, seconds, result,
# one line of reason: for a failure the last error-like line on stderr, else on stdout, else the
# last meaningful line), then "runtime API only: N passed, M failed; driver API / NVRTC: N passed,
# M failed" and the skipped counts by reason. Every sample's build.log and run.log (with, for a
# failure, the CudaBridge log records of WARN and above and the refusal diagnosis) are kept in
# <out>/<sample>/; <out>/results.tsv holds the table with the full reasons.
# Exit code: 0 when nothing failed, 1 when some sample failed, 2 on bad input.
set -u

usage() {
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
}

die() {
  echo "cuda-samples.sh: $*" >&2
  exit 2
}

case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  "") usage >&2; die "missing CUDA_SAMPLES_DIR (a checkout of NVIDIA's cuda-samples)" ;;
esac

given_dir=$1
shift
[[ -d $given_dir ]] || die "no such folder: $given_dir"
given_dir=$(cd "$given_dir" && pwd)
if [[ -d $given_dir/Samples && -d $given_dir/Common ]]; then
  samples_root=$given_dir
elif [[ $(basename "$given_dir") == Samples && -d $given_dir/../Common ]]; then
  samples_root=$(cd "$given_dir/.." && pwd)
else
  die "$given_dir is not a cuda-samples checkout (no Samples/ and Common/ folders in it)"
fi
common=$samples_root/Common
[[ -f $common/helper_cuda.h ]] || die "$common/helper_cuda.h is missing: is $samples_root a complete cuda-samples checkout?"

script_dir=$(cd "$(dirname "$0")" && pwd)
cli=${CUDABRIDGE_CLI:-$script_dir/../build/bin/cudabridge-cli}
[[ -x $cli ]] || die "no CudaBridge CLI at $cli: build the repository first (scripts/build.sh) or set CUDABRIDGE_CLI"
cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
"$cli" run --help >/dev/null 2>&1 || die "$cli does not answer 'run --help': is it a CudaBridge CLI with the run command?"

nvcc=${NVCC:-}
if [[ -z $nvcc ]]; then
  nvcc=$(command -v nvcc || true)
  [[ -z $nvcc && -n ${CUDA_HOME:-} && -x ${CUDA_HOME:-}/bin/nvcc ]] && nvcc=$CUDA_HOME/bin/nvcc
  [[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
fi
[[ -n $nvcc && -x $(command -v "$nvcc" 2>/dev/null || echo "$nvcc") ]] ||
  die "no nvcc found (not on PATH, nor in \$CUDA_HOME/bin or /usr/local/cuda/bin): install a CUDA 13 toolkit or set NVCC"
nvcc_version=$("$nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
[[ -n $nvcc_version ]] || die "$nvcc --version says no release: is it nvcc?"
# The toolkit the driver-group samples link with (lib64/stubs/libcuda.so, lib64/libnvrtc.so) and
# whose include folder NVRTC programs copy headers from.
cuda_home=${CUDA_HOME:-}
if [[ -z $cuda_home ]]; then
  cuda_home=$(readlink -f "$(command -v "$nvcc" 2>/dev/null || echo "$nvcc")")
  cuda_home=$(dirname "$(dirname "$cuda_home")")
fi

timeout_s=${CUDA_SAMPLES_TIMEOUT:-600}
[[ $timeout_s =~ ^[0-9]+$ && $timeout_s -gt 0 ]] || die "CUDA_SAMPLES_TIMEOUT must be a positive number of seconds, not '$timeout_s'"
cudart_verbose=${CUDABRIDGE_CUDART_VERBOSE:-1}
# The samples' stdout goes to a file: line-buffered (stdbuf's LD_PRELOAD reaches the program
# through `run`), so what a sample printed before it aborted is kept.
line_buffered=()
command -v stdbuf >/dev/null && line_buffered=(stdbuf -oL)
command -v timeout >/dev/null || die "the timeout command (coreutils) is missing"

# ---------------------------------------------------------------------------------------------
# Reading a sample's CMakeLists.txt. Prints key=value lines:
#   target=NAME  sources=FILE...  includes=DIR...  arch=NN  unreachable=WHY  needs=WHAT, ...
#   openmp=1  lambda=1
read -r -d '' cmake_reader <<'AWK'
function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
# What a condition is on x86-64 Linux: "1", "0:why" or "1" for package tests (those are found by
# the library scan below).
function cond_value(c,    parts, n, i, v, any) {
  c = trim(c)
  if (c ~ /^NOT[ \t(]/) {
    sub(/^NOT[ \t]*/, "", c)
    v = cond_value(c)
    if (v ~ /^0/) return "1"
    return pkg_test(c) ? "1" : "0:" c
  }
  gsub(/^\(|\)$/, "", c)
  if (c ~ / OR /) {
    n = split(c, parts, / OR /); any = ""
    for (i = 1; i <= n; i++) { v = cond_value(parts[i]); if (v == "1") return "1"; if (any == "") any = v }
    return any
  }
  if (c ~ / AND /) {
    n = split(c, parts, / AND /)
    for (i = 1; i <= n; i++) { v = cond_value(parts[i]); if (v != "1") return v }
    return "1"
  }
  if (c ~ /WIN32|MSVC|Visual Studio/) return "0:Windows-only (if(" c "))"
  if (c ~ /aarch64/) return "0:aarch64/Tegra-only (if(" c "))"
  if (c ~ /QNX/) return "0:QNX-only (if(" c "))"
  if (c ~ /CMAKE_CROSSCOMPILING/) return "0:cross-compiling only (if(" c "))"
  if (c ~ /STREQUAL[ \t]+"[A-Za-z]+"/ && c ~ /CMAKE_SYSTEM_NAME/ && c !~ /"Linux"/) return "0:not on Linux (if(" c "))"
  return "1"
}
function pkg_test(c) { return c ~ /_FOUND|_LIB|GLFW3_H|HAVE_/ }
{
  line = $0
  sub(/#.*/, "", line)
  text = text line "\n"
  if (line ~ /^[ \t]*if[ \t]*\(/) {
    c = line; sub(/^[ \t]*if[ \t]*\(/, "", c); sub(/\)[ \t]*$/, "", c)
    depth++; stack[depth] = c; next
  }
  if (line ~ /^[ \t]*elseif[ \t]*\(/) {
    c = line; sub(/^[ \t]*elseif[ \t]*\(/, "", c); sub(/\)[ \t]*$/, "", c)
    stack[depth] = "NOT (" stack[depth] ") AND " c; next
  }
  if (line ~ /^[ \t]*else[ \t]*\(/) { stack[depth] = "NOT (" stack[depth] ")"; next }
  if (line ~ /^[ \t]*endif[ \t]*\(/) { if (depth > 0) depth--; next }
  if (line ~ /(^|[^_A-Za-z])add_executable[ \t]*\(/ && !seen_exe) {
    seen_exe = 1
    for (i = 1; i <= depth; i++) {
      v = cond_value(stack[i])
      if (v != "1") { sub(/^0:/, "", v); unreachable = v; break }
    }
  }
}
# The arguments of every call of command `name`, one call per element of `calls`.
function calls_of(name, calls,    t, n, p, rest, e) {
  t = text; n = 0
  while ((p = match(t, "(^|[^_A-Za-z])" name "[ \t]*\\(")) > 0) {
    rest = substr(t, p + RLENGTH)
    e = index(rest, ")")
    if (e == 0) break
    calls[++n] = substr(rest, 1, e - 1)
    t = substr(rest, e + 1)
  }
  return n
}
# ${NAME} replaced by its set() value (a few rounds, for values that name other variables); an
# unknown variable is left as it is.
function expand(s,    round, out, rest, name, changed) {
  for (round = 0; round < 5; round++) {
    out = ""; rest = s; changed = 0
    while (match(rest, /\$\{[A-Za-z_0-9]+\}/)) {
      name = substr(rest, RSTART + 2, RLENGTH - 3)
      if (name in vars) { out = out substr(rest, 1, RSTART - 1) vars[name]; changed = 1 }
      else out = out substr(rest, 1, RSTART + RLENGTH - 1)
      rest = substr(rest, RSTART + RLENGTH)
    }
    s = out rest
    if (!changed) break
  }
  return s
}
END {
  n = calls_of("add_executable", exe)
  if (n == 0) { print "noexe=1"; exit }
  split(exe[1], tok, /[ \t\n]+/)
  target = ""; sources = ""
  for (i = 1; i in tok; i++) {
    if (tok[i] == "") continue
    if (target == "") { target = tok[i]; continue }
    if (tok[i] ~ /\.(cu|cpp|cc|cxx|c)$/) sources = sources " " tok[i]
  }
  print "target=" target
  print "sources=" trim(sources)
  incs = ""
  n = calls_of("include_directories", inc)
  m = calls_of("target_include_directories", tinc)
  for (k = 1; k <= m; k++) inc[n + k] = tinc[k]
  n += m
  for (k = 1; k <= n; k++) {
    split(inc[k], tok, /[ \t\n]+/)
    for (i = 1; i in tok; i++) {
      d = tok[i]
      if (d == "" || d == target || d ~ /^(PUBLIC|PRIVATE|INTERFACE|SYSTEM|BEFORE|AFTER)$/) continue
      sub(/^\$\{CMAKE_CURRENT_SOURCE_DIR\}\/?/, "", d)
      if (d == "" || d ~ /\$\{/) continue
      incs = incs " " d
    }
  }
  print "includes=" trim(incs)
  arch = ""
  t = text
  while (match(t, /(CMAKE_CUDA_ARCHITECTURES|CUDA_ARCHITECTURES)[ \t]+[0-9][^)\n]*/)) {
    list = substr(t, RSTART, RLENGTH); t = substr(t, RSTART + RLENGTH)
    sub(/^[A-Z_]+[ \t]+/, "", list)
    split(list, tok, /[ \t";]+/)
    for (i = 1; i in tok; i++) {
      a = tok[i]; sub(/-(real|virtual)$/, "", a)
      if (a !~ /^[0-9]+[a-z]?$/) continue
      num = a; sub(/[a-z]$/, "", num)
      if (arch == "" || num + 0 < archnum + 0) { arch = a; archnum = num }
    }
  }
  print "arch=" arch
  if (unreachable != "") print "unreachable=" unreachable
  # The driver-API group: what a sample may need beyond the runtime and still be built and run.
  drv = ""
  if (text ~ /CUDA::cuda_driver|\$\{CUDA_LIB\}|CUDA::cuda[ \t\n)]/) { drv = drv ", CUDA driver API (CUDA::cuda_driver)"; print "driver=1" }
  if (text ~ /CUDA::nvrtc/) { drv = drv ", NVRTC"; print "nvrtc=1" }
  needs = ""
  if (text ~ /CUDA::cublas/) needs = needs ", cuBLAS"
  if (text ~ /CUDA::cufft/) needs = needs ", cuFFT"
  if (text ~ /CUDA::curand/) needs = needs ", cuRAND"
  if (text ~ /CUDA::cusparse/) needs = needs ", cuSPARSE"
  if (text ~ /CUDA::cusolver/) needs = needs ", cuSOLVER"
  if (text ~ /CUDA::npp/) needs = needs ", NPP"
  if (text ~ /CUDA::nvjpeg/) needs = needs ", nvJPEG"
  if (text ~ /nvJitLink|NVJITLINK/) needs = needs ", nvJitLink"
  if (text ~ /NVVM_LIB|LIBNVVM/) needs = needs ", libNVVM"
  if (text ~ /LLVM/) needs = needs ", LLVM"
  if (text ~ /OpenGL|OPENGL|GLUT|GLEW|GLES|[^A-Za-z_]GL[^A-Za-z_]/) needs = needs ", OpenGL"
  if (text ~ /EGL/) needs = needs ", EGL"
  if (text ~ /X11/) needs = needs ", X11"
  if (text ~ /Vulkan|glfw|GLFW/) needs = needs ", Vulkan/GLFW"
  if (text ~ /find_package\(MPI|MPI_[A-Z]/) needs = needs ", MPI"
  if (text ~ /NVSCI|NvSci|nvsci/) needs = needs ", NvSci"
  if (text ~ /NVMEDIA|NvMedia|nvmedia/) needs = needs ", NvMedia"
  if (text ~ /cudla|CUDLA/) needs = needs ", cuDLA"
  if (text ~ /FreeImage/) needs = needs ", FreeImage"
  if (text ~ /DRM_LIB/) needs = needs ", libdrm"
  # Variables: set(NAME value) and list(GET CUDAToolkit_INCLUDE_DIRS n NAME), for expand().
  n = calls_of("set", sets)
  for (k = 1; k <= n; k++) {
    v = trim(sets[k])
    if (!match(v, /^[A-Za-z_0-9]+/)) continue
    name = substr(v, 1, RLENGTH); v = trim(substr(v, RLENGTH + 1)); gsub(/"/, "", v)
    vars[name] = v
  }
  n = calls_of("list", lists)
  for (k = 1; k <= n; k++) {
    split(trim(lists[k]), tok, /[ \t\n]+/)
    if (tok[1] == "GET" && tok[2] == "CUDAToolkit_INCLUDE_DIRS" && tok[4] != "") vars[tok[4]] = "${CUDAToolkit_INCLUDE_DIRS}"
  }
  # The modules the sample builds itself: add_custom_command()s with nvcc -ptx/-fatbin/-cubin:
  # module=KIND OUTPUT-FILE-NAME KERNEL-SOURCE (relative to the sample's folder).
  n = calls_of("add_custom_command", customs)
  modules = 0; unread = ""
  for (k = 1; k <= n; k++) {
    c = customs[k]
    if (c !~ /(^|[ \t\n])-(ptx|fatbin|cubin)([ \t\n]|$)/) continue
    split(c, tok, /[ \t\n]+/)
    kind = ""; outfile = ""; src = ""; output = ""; incmd = 0
    for (i = 1; i in tok; i++) {
      t = tok[i]
      if (t == "OUTPUT" && output == "") { output = tok[i + 1]; continue }
      if (t == "COMMAND") { incmd = 1; continue }
      if (t ~ /^(DEPENDS|COMMENT|WORKING_DIRECTORY|VERBATIM|BYPRODUCTS|MAIN_DEPENDENCY)$/) incmd = 0
      if (!incmd) continue
      if (t ~ /^-(ptx|fatbin|cubin)$/) kind = t
      else if (t == "-o") outfile = tok[i + 1]
      else if (src == "" && expand(t) ~ /\.cu$/) src = t
    }
    if (outfile == "") outfile = output
    outfile = expand(outfile); src = expand(src)
    sub(/^\$\{CMAKE_CURRENT_BINARY_DIR\}\//, "", outfile)
    sub(/^\$\{CMAKE_CURRENT_SOURCE_DIR\}\//, "", src)
    if (kind == "" || outfile == "" || src == "" || outfile ~ /[$\/]/ || src ~ /\$/) { unread = 1; continue }
    print "module=" kind " " outfile " " src
    modules++
  }
  if (text ~ /CUDA_(PTX|FATBIN|CUBIN)_COMPILATION/ || unread != "" ||
      (modules == 0 && text ~ /-(ptx|fatbin|cubin)[ \t\n"]/))
    needs = needs ", its own .ptx/.fatbin/.cubin file (built in a way this script does not read: CUDA_PTX_COMPILATION or an unusual custom command)"
  else if (modules > 0)
    drv = drv ", its own .ptx/.fatbin/.cubin file (built by a custom command, loaded at run time)"
  # Files a POST_BUILD command copies into the build folder from the toolkit's include folder
  # (headers an NVRTC program compiles with): copy=SOURCE NAME.
  for (k = 1; k <= n; k++) {
    split(customs[k], tok, /[ \t\n]+/)
    m = 0; mode = ""
    for (i = 1; i in tok; i++) {
      t = tok[i]
      if (mode == "" && t ~ /^copy(_if_different|_directory)?$/ && tok[i - 1] == "-E") { mode = t; continue }
      if (mode == "") continue
      if (t ~ /^(COMMAND|DEPENDS|COMMENT|WORKING_DIRECTORY|VERBATIM)$/ || t == "") { if (m) break; continue }
      args[++m] = expand(t)
    }
    if (m < 2) continue
    dest = args[m]; sub(/\/$/, "", dest)
    for (i = 1; i < m; i++) {
      s = args[i]
      if (s !~ /^\$\{CUDAToolkit_INCLUDE_DIRS\}\//) continue
      name = s; sub(/.*\//, "", name)
      if (m == 2 && dest != "${CMAKE_CURRENT_BINARY_DIR}") { name = dest; sub(/.*\//, "", name) }
      print "copy=" s " " name
    }
  }
  sub(/^, /, "", needs); sub(/^, /, "", drv)
  if (needs != "") print "needs=" needs
  if (drv != "") print "drvneeds=" drv
  if (text ~ /OpenMP::OpenMP_(CXX|C)/) print "openmp=1"
  if (text ~ /--extended-lambda/) print "lambda=1"
}
AWK

# The lowest "SM x.y" in the README's "Supported SM Architectures" section, as xy ("" if none).
readme_arch() {
  local readme=$1/README.md
  [[ -f $readme ]] || return 0
  awk '/^## /{ on = ($0 ~ /Supported SM Architectures/); next }
       on { while (match($0, /SM [0-9]+\.[0-9]+/)) {
              v = substr($0, RSTART + 3, RLENGTH - 3); $0 = substr($0, RSTART + RLENGTH)
              split(v, p, "."); n = p[1] * 10 + p[2]
              if (min == "" || n < min) min = n } }
       END { if (min != "") print min }' "$readme"
}

# ---------------------------------------------------------------------------------------------
# The samples: every folder under Samples/ whose CMakeLists.txt has an add_executable().
# s_group: "runtime" (the CUDA runtime only) or "driver" (also the driver API, NVRTC or a module
# file of its own); s_modules: "KIND FILE SOURCE" entries, s_copies: "SOURCE NAME" entries, ";"
# between entries.
declare -a s_dir=() s_rel=() s_name=() s_target=() s_sources=() s_includes=() s_arch=() s_skip=() s_openmp=() s_lambda=()
declare -a s_group=() s_driver=() s_nvrtc=() s_modules=() s_copies=()
while IFS= read -r cm; do
  dir=$(dirname "$cm")
  rel=${dir#"$samples_root"/Samples/}
  target="" sources="" includes="" arch="" unreachable="" needs="" openmp="" lambda="" noexe=""
  drvneeds="" driver="" nvrtc="" modules="" copies=""
  while IFS='=' read -r key value; do
    case $key in
      target) target=$value ;; sources) sources=$value ;; includes) includes=$value ;;
      arch) arch=$value ;; unreachable) unreachable=$value ;; needs) needs=$value ;;
      openmp) openmp=1 ;; lambda) lambda=1 ;; noexe) noexe=1 ;;
      drvneeds) drvneeds=$value ;; driver) driver=1 ;; nvrtc) nvrtc=1 ;;
      module) modules=${modules:+$modules;}$value ;; copy) copies=${copies:+$copies;}$value ;;
    esac
  done < <(awk "$cmake_reader" "$cm")
  [[ -n $noexe ]] && continue
  # Everything it needs beyond the runtime, the libraries that keep it from running first.
  allneeds=$needs${needs:+${drvneeds:+, }}$drvneeds
  skip=""
  if [[ $rel == 8_Platform_Specific/* ]]; then
    skip="Tegra-only (8_Platform_Specific is built only with BUILD_TEGRA)"
    [[ -n $allneeds ]] && skip="$skip; needs $allneeds"
  elif [[ -n $unreachable ]]; then
    skip=$unreachable
    [[ -n $allneeds ]] && skip="$skip; needs $allneeds"
  elif [[ -n $needs ]]; then
    skip="needs $allneeds"
  elif [[ -z $sources ]]; then
    skip="no .cu/.cpp/.c source named in its add_executable()"
  fi
  # The architecture: 75 unless the CMakeLists or the README asks for a higher one.
  best=75
  if [[ -n $arch ]]; then
    num=${arch%%[a-z]}
    ((num > 75)) && best=$arch
  fi
  rarch=$(readme_arch "$dir")
  if [[ -n $rarch ]] && ((rarch > ${best%%[a-z]})); then best=$rarch; fi
  s_dir+=("$dir") s_rel+=("$rel") s_name+=("$(basename "$dir")") s_target+=("${target:-$(basename "$dir")}")
  s_sources+=("$sources") s_includes+=("$includes") s_arch+=("$best") s_skip+=("$skip")
  s_openmp+=("$openmp") s_lambda+=("$lambda")
  s_group+=("$([[ -n $drvneeds ]] && echo driver || echo runtime)")
  s_driver+=("$driver") s_nvrtc+=("$nvrtc") s_modules+=("$modules") s_copies+=("$copies")
done < <(find "$samples_root/Samples" -name CMakeLists.txt -type f -exec grep -l 'add_executable' {} + | LC_ALL=C sort)
((${#s_dir[@]})) || die "no samples found under $samples_root/Samples (no CMakeLists.txt with add_executable)"

# NAME arguments: which samples to take.
declare -a chosen=()
if (($#)); then
  for want in "$@"; do
    want=${want%/}
    found=""
    for i in "${!s_dir[@]}"; do
      if [[ $want == "${s_name[i]}" || $want == "${s_target[i]}" || $want == "${s_rel[i]}" ]]; then
        found=1
        [[ " ${chosen[*]} " == *" $i "* ]] || chosen+=("$i")
      fi
    done
    [[ -n $found ]] || die "no sample named '$want' under $samples_root/Samples (a folder name such as vectorAdd, a CMake target, or a path such as 0_Introduction/vectorAdd)"
  done
else
  chosen=("${!s_dir[@]}")
fi

# The output folder.
if [[ -n ${CUDA_SAMPLES_OUT:-} ]]; then
  mkdir -p "$CUDA_SAMPLES_OUT" || die "cannot create $CUDA_SAMPLES_OUT"
  out=$(cd "$CUDA_SAMPLES_OUT" && pwd)
else
  out=$(mktemp -d "${TMPDIR:-/tmp}/cuda-samples.XXXXXX") || die "cannot create an output folder"
fi

# ---------------------------------------------------------------------------------------------
# Printing.
w_name=28
for i in "${chosen[@]}"; do ((${#s_name[i]} > w_name)) && w_name=${#s_name[i]}; done
row() {  # sample group build exit seconds result reason
  local reason=$7
  ((${#reason} > 200)) && reason="${reason:0:197}..."
  printf "%-${w_name}s  %-7s  %-6s  %4s  %7s  %-6s  %s\n" "$1" "$2" "$3" "$4" "$5" "$6" "$reason"
}
results=$out/results.tsv
printf 'sample\tpath\tgroup\tbuild\texit\tseconds\tresult\treason\n' >"$results"
record() {  # index build exit seconds result reason
  local i=$1 group
  group=${s_group[i]}
  [[ -n ${s_skip[i]} ]] && group="-"
  row "${s_name[i]}" "$group" "$2" "$3" "$4" "$5" "$6"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${s_name[i]}" "${s_rel[i]}" "$group" "$2" "$3" "$4" "$5" "$6" >>"$results"
}

# A line worth showing: not empty, has a letter or digit, not CudaBridge's run summary.
meaningful() {
  tr -d '\r' <"$1" | sed 's/\x1b\[[0-9;]*m//g' |
    grep -a -v -e '^cudabridge run:' -e '^[[:space:]]*$' | grep -a '[[:alnum:]]' | sed 's/^[[:space:]]*//'
}
# What a sample that exits with EXIT_WAIVED (2) says when it waives itself.
waiver_words='waiv|(doesn.t|does not|do not|don.t|not) support'
error_like='error|fail|FAIL|refus|not supported|unsupported|abort|Assertion|undefined symbol|Segmentation|exception|terminate|mismatch|incorrect|wrong|cannot|could not|unable|invalid|illegal|does not|isn.t|differ|exceed'
# The one-line reason for a run: for a failure the last error-like line of stderr, else of
# stdout, else the last meaningful line of either; for a pass the last line of stdout.
reason_of() {  # stdout stderr failed?
  local line=""
  if [[ $3 == 1 ]]; then
    line=$(meaningful "$2" | grep -a -E -i "$error_like" | tail -n 1)
    [[ -z $line ]] && line=$(meaningful "$1" | grep -a -E -i "$error_like" | tail -n 1)
    [[ -z $line ]] && line=$(meaningful "$2" | tail -n 1)
  fi
  [[ -z $line ]] && line=$(meaningful "$1" | tail -n 1)
  [[ -z $line ]] && line=$(meaningful "$2" | tail -n 1)
  # Absolute paths shortened to their last part (the sample's file names say enough).
  printf '%s' "${line:-no output}" | sed -E 's#(^|[ "(=])/([^ /"]+/)+#\1#g'
}

# What a sample that exits 0 may still print when its check failed.
failure_words=(-e 'FAILED' -e 'Result = FAIL' -e 'Test failed')
# A file's text, ending with a newline.
with_newline() {
  cat "$1"
  [[ -s $1 && -n $(tail -c 1 "$1") ]] && echo  # $(...) drops a final newline
  return 0
}
signal_name() { kill -l "$1" 2>/dev/null || echo "signal $1"; }

n_pass=0 n_fail=0 n_skip=0
declare -A group_pass=([runtime]=0 [driver]=0) group_fail=([runtime]=0 [driver]=0)
declare -A skip_counts=()
declare -a failed_names=()
interrupted=""

summary() {
  echo
  echo "runtime API only: ${group_pass[runtime]} passed, ${group_fail[runtime]} failed; driver API / NVRTC: ${group_pass[driver]} passed, ${group_fail[driver]} failed"
  if ((n_skip)); then
    echo "$n_skip skipped:"
    for why in "${!skip_counts[@]}"; do
      printf '  %4d  %s\n' "${skip_counts[$why]}" "$why"
    done | sort -k1,1nr -k2
  fi
  ((n_fail)) && echo "failed: ${failed_names[*]}"
  [[ -n $interrupted ]] && echo "(interrupted: the samples after the last row did not run)"
  [[ $(lib_stamp) != "$first_stamp" ]] &&
    echo "warning: CudaBridge's libraries or plugins (under $lib_dir) changed while the samples ran: the rows may mix two builds"
  echo "build and run logs: $out/<sample>/{build.log,run.log}; table: $results"
}
on_signal() {
  trap - INT TERM
  # The sample running now (timeout passes the signal on to its process group).
  [[ -n ${running:-} ]] && kill -TERM "$running" 2>/dev/null && wait "$running" 2>/dev/null
  interrupted=1
  summary
  exit 130
}
trap on_signal INT TERM

skip_sample() {  # index category reason
  record "$1" "-" "-" "-" "skip" "$3"
  n_skip=$((n_skip + 1))
  skip_counts[$2]=$((${skip_counts[$2]:-0} + 1))
}

failed_sample() {  # index
  n_fail=$((n_fail + 1)) group_fail[${s_group[$1]}]=$((group_fail[${s_group[$1]}] + 1))
  failed_names+=("${s_name[$1]}")
}

# What a driver-group sample gets beyond a runtime-only one (for the list).
driver_extras() {  # index
  local i=$1 m c kind file src what=${s_openmp[$1]:+ (OpenMP)}
  [[ -n ${s_driver[i]} ]] && what="$what; links the driver API (-lcuda)"
  [[ -n ${s_nvrtc[i]} ]] && what="$what; links NVRTC (-lnvrtc)"
  IFS=';' read -r -a m <<<"${s_modules[i]}"
  for c in "${m[@]}"; do
    read -r kind file src <<<"$c"
    what="$what; builds $file (nvcc $kind $src)"
  done
  IFS=';' read -r -a m <<<"${s_copies[i]}"
  for c in "${m[@]}"; do
    read -r src file <<<"$c"
    what="$what; links $file from the toolkit"
  done
  printf '%s' "$what"
}

n_selected=0 n_driver=0
for i in "${chosen[@]}"; do
  [[ -z ${s_skip[i]} ]] || continue
  n_selected=$((n_selected + 1))
  [[ ${s_group[i]} == driver ]] && n_driver=$((n_driver + 1))
done
if [[ ${CUDA_SAMPLES_LIST:-} == 1 ]]; then
  for i in "${chosen[@]}"; do
    if [[ -n ${s_skip[i]} ]]; then
      printf '%-48s skip  %s\n' "${s_rel[i]}" "${s_skip[i]}"
    elif [[ ${s_group[i]} == driver ]]; then
      printf '%-48s run   driver  sm_%s: %s%s\n' "${s_rel[i]}" "${s_arch[i]}" "${s_sources[i]}" "$(driver_extras "$i")"
    else
      printf '%-48s run   runtime sm_%s: %s%s\n' "${s_rel[i]}" "${s_arch[i]}" "${s_sources[i]}" "${s_openmp[i]:+ (OpenMP)}"
    fi
  done
  echo "${#chosen[@]} sample(s) listed, $n_selected to build and run ($((n_selected - n_driver)) runtime API only, $n_driver driver API / NVRTC), $((${#chosen[@]} - n_selected)) skipped"
  [[ -z ${CUDA_SAMPLES_OUT:-} ]] && rmdir "$out" 2>/dev/null
  exit 0
fi
echo "cuda-samples: $samples_root ($(git -C "$samples_root" rev-parse --short HEAD 2>/dev/null || echo 'not a git work tree'))"
echo "nvcc $nvcc_version: $nvcc"
echo "CudaBridge CLI: $cli"
echo "timeout: ${timeout_s} s a sample (CUDA_SAMPLES_TIMEOUT)"
echo "logs: $out"
echo "${#chosen[@]} sample(s) listed, $n_selected will be built and run: $((n_selected - n_driver)) need only the CUDA runtime, $n_driver also the driver API / NVRTC (toolkit: $cuda_home)"
echo
row SAMPLE GROUP BUILD EXIT SECONDS RESULT REASON

# CudaBridge's files a run uses: the CLI, its libraries, the CUDA runtime and driver and the plugins
# (the build tree's and an installation's layout alike). lib_stamp: the newest modification time.
lib_dir=$(dirname "$cli")/../lib
lib_stamp() {
  find "$cli" "$lib_dir" "$lib_dir/cudabridge/cudart" "$lib_dir/cudabridge/driver" "$lib_dir/cudabridge/plugins" -maxdepth 1 \
    \( -name 'cudabridge-cli' -o -name 'libcudabridge*.so*' -o -name 'libcudart*.so*' -o -name 'libcuda.so*' \) -printf '%T@\n' 2>/dev/null |
    sort -n | tail -n 1
}
# Waits (10 minutes at most) until those files have not changed for 30 s: a rebuild is over.
wait_for_quiet_libraries() {
  local before after tries=0
  after=$(lib_stamp)
  while ((tries++ < 20)); do
    before=$after
    sleep 30
    after=$(lib_stamp)
    [[ $before == "$after" ]] && return 0
  done
}
first_stamp=$(lib_stamp)

# The loader could not use CudaBridge's libraries (they were being rebuilt meanwhile).
loader_trouble() {
  grep -E -q "error while loading shared libraries: [^ ]*(libcudart|libcudabridge|libcuda\.so)|symbol lookup error: [^ ]*(libcudart|libcudabridge|libcuda\.so|/plugins/)|(libcudart|libcudabridge|libcuda\.so)[^ ]*: (file too short|invalid ELF header|cannot open shared object)" "$1"
}

# Runs sample i once, in the background so that an interrupt reaches it (timeout(1) runs it in
# a process group of its own, which the INT/TERM trap stops); leaves stdout/stderr in $2.out and
# $2.err and sets run_rc, run_secs and run_home.
running=""
in_background() {  # folder log command...: runs it there, appending to the log; its exit code
  local dir=$1 log=$2 rc
  shift 2
  (cd "$dir" && exec "$@") >>"$log" 2>&1 &
  running=$!
  wait "$running"
  rc=$?
  running=""
  return "$rc"
}
run_once() {
  local i=$1 base=$2 exe=$3 start end
  run_home=$(mktemp -d "$out/${s_name[i]}/home.XXXXXX")
  start=$(date +%s%N)
  (
    cd "${s_dir[i]}" || exit 126
    export CUDABRIDGE_HOME=$run_home
    export CUDABRIDGE_CUDART_VERBOSE=$cudart_verbose
    unset CUDABRIDGE_DB
    exec timeout -k 10 "$timeout_s" "${line_buffered[@]}" "$cli" run -- "$exe" </dev/null >"$base.out" 2>"$base.err"
  ) &
  running=$!
  wait "$running"
  run_rc=$?
  running=""
  end=$(date +%s%N)
  run_secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
}

# Why CudaBridge refuses a sample's kernels (the program is told only "no kernel image for the
# device"): the fatbins nvcc put in the executable (its .nv_fatbin section, one container after
# the other) are loaded one by one with the CudaBridge Python package (build/venv, when there is
# one) on a fresh eGPU, which names the refused PTX instruction and its PTX line, or says that a
# fatbin holds machine code only. When no fatbin has PTX (an -rdc=true build: nvlink's output is
# machine code), the .cu files are also compiled to PTX as the build compiled them and loaded, to
# say what the PTX would meet. The files are kept in <out>/<sample>/ptx/.
python_for_ptx=${CUDABRIDGE_PYTHON:-$(dirname "$cli")/../venv/bin/python}
read -r -d '' load_modules <<'PY'
import os, struct, sys
import cudabridge as cb
cb.init()
def load(path, label):
    try:
        cb.RawModule(path=path)
        return label + ": loads"
    except Exception as e:
        return label + ": " + str(e).replace("cbModuleLoadData: module_load: ", "")
for path in sys.argv[1:]:
    if path.endswith(".ptx"):
        print(load(path, os.path.basename(path)))
        continue
    data, at, n = open(path, "rb").read(), 0, 0
    while (at := data.find(struct.pack("<I", 0xBA55ED50), at)) >= 0:
        _, _, header, payload = struct.unpack_from("<IHHQ", data, at)
        n += 1
        one = "%s.%d.fatbin" % (path, n)
        with open(one, "wb") as f:
            f.write(data[at:at + header + payload])
        print(load(one, "fatbin %d of the executable" % n))
        at += header + payload
PY
ptx_diagnosis() {  # index sample-out-dir arch executable
  local i=$1 sdir=$2 arch=$3 exe=$4 s ptx found="" lines
  [[ -x $python_for_ptx ]] && command -v objcopy >/dev/null || return 0
  mkdir -p "$sdir/ptx"
  objcopy -O binary --only-section=.nv_fatbin "$exe" "$sdir/ptx/nv_fatbin" 2>/dev/null || return 0
  lines=$(CUDABRIDGE_HOME=$(mktemp -d "$sdir/ptx/home.XXXXXX") CUDABRIDGE_LOG_SINKS=sqlite timeout 300 \
    "$python_for_ptx" -c "$load_modules" "$sdir/ptx/nv_fatbin" 2>&1)
  # The fatbins with PTX say why; a machine-code-only one matters only when no fatbin has PTX.
  if grep -v -e ': loads$' -e 'machine code' <<<"$lines" | grep -q .; then
    grep -v -e ': loads$' -e 'machine code' <<<"$lines"
    return 0
  fi
  grep -v ': loads$' <<<"$lines"
  grep -q 'machine code' <<<"$lines" || return 0
  for s in ${s_sources[i]}; do
    [[ $s == *.cu ]] || continue
    ptx=$sdir/ptx/$(basename "$s" .cu).ptx
    (cd "${s_dir[i]}" && "$nvcc" -ptx -O2 -arch="compute_$arch" "${flags[@]}" -o "$ptx" "${s_dir[i]}/$s") >"$ptx.log" 2>&1 &&
      found="$found $ptx"
  done
  [[ -n $found ]] || return 0
  # shellcheck disable=SC2086 # one argument per file
  CUDABRIDGE_HOME=$(mktemp -d "$sdir/ptx/home.XXXXXX") CUDABRIDGE_LOG_SINKS=sqlite timeout 300 \
    "$python_for_ptx" -c "$load_modules" $found 2>&1 | sed 's/^/its PTX (nvcc -ptx): /'
}

for i in "${chosen[@]}"; do
  name=${s_name[i]}
  if [[ -n ${s_skip[i]} ]]; then
    why=${s_skip[i]}
    category=$why
    case $why in
      Tegra-only*) category="Tegra-only (8_Platform_Specific)" ;;
      Windows-only*) category="Windows-only" ;;
      needs*) category=${why%%,*}; category=${category%% (*} ;;  # the first library it needs
    esac
    skip_sample "$i" "excluded: $category" "$why"
    continue
  fi
  dir=${s_dir[i]}
  sdir=$out/$name
  mkdir -p "$sdir"
  exe=$sdir/${s_target[i]}
  arch=${s_arch[i]}
  # The build.
  read -r -a srcs <<<"${s_sources[i]}"
  flags=(-I "$common")
  read -r -a incs <<<"${s_includes[i]}"
  for d in "${incs[@]}"; do
    [[ $d == /* ]] || d=$dir/$d
    [[ -d $d ]] || continue
    d=$(cd "$d" && pwd)
    [[ $d != "$common" ]] && flags+=(-I "$d")
  done
  include_flags=("${flags[@]}")
  [[ -n ${s_lambda[i]} ]] && flags+=(--extended-lambda)
  [[ -n ${s_openmp[i]} ]] && flags+=(-Xcompiler -fopenmp)
  cmd=("$nvcc" -O2 -cudart shared -gencode "arch=compute_$arch,code=[compute_$arch,sm_$arch]" "${flags[@]}")
  [[ -n ${s_openmp[i]} ]] && cmd+=(-lgomp)
  [[ -n ${s_driver[i]} ]] && cmd+=(-L "$cuda_home/lib64/stubs" -lcuda)
  [[ -n ${s_nvrtc[i]} ]] && cmd+=(-L "$cuda_home/lib64" -lnvrtc -Xlinker -rpath -Xlinker "$cuda_home/lib64")
  cmd+=(-o "$exe")
  for s in "${srcs[@]}"; do cmd+=("$dir/$s"); done
  build="ok" brc=0 failed_step=""
  echo "# in $dir" >"$sdir/build.log"
  b_start=$(date +%s)
  # The module files it loads (built first, as CMake does), beside the executable and copied
  # into its run folder, where the samples look for them (sdkFindFilePath: ./, then ./data/).
  modules=() module_files=()
  IFS=';' read -r -a modules <<<"${s_modules[i]}"
  for m in "${modules[@]}"; do
    read -r kind file src <<<"$m"
    case $kind in
      -fatbin) code=(-gencode "arch=compute_$arch,code=[compute_$arch,sm_$arch]") ;;
      -ptx) code=(-arch="compute_$arch") ;;
      *) code=(-arch="sm_$arch") ;;
    esac
    mcmd=("$nvcc" "$kind" "${code[@]}" "${include_flags[@]}" -o "$sdir/$file" "$dir/$src")
    {
      printf '%q ' "${mcmd[@]}"
      echo
    } >>"$sdir/build.log"
    rm -f "$sdir/$file"
    in_background "$dir" "$sdir/build.log" "${mcmd[@]}"
    brc=$?
    if ((brc == 0)); then
      module_files+=("$sdir/$file")
      echo "cp $sdir/$file $dir/" >>"$sdir/build.log"
      cp "$sdir/$file" "$dir/$file" 2>>"$sdir/build.log" || brc=1
    fi
    ((brc == 0)) || { failed_step="$file: "; break; }
  done
  # Files CMake copies in from the toolkit's include folder (headers for NVRTC): linked into the
  # run folder (never over a file of the sample's own).
  copies=()
  IFS=';' read -r -a copies <<<"${s_copies[i]}"
  for c in "${copies[@]}"; do
    ((brc == 0)) || break
    read -r src file <<<"$c"
    # shellcheck disable=SC2016 # the CMake variable, literally
    src=${src//'${CUDAToolkit_INCLUDE_DIRS}'/$cuda_home/include}
    if [[ ! -e $src ]]; then
      echo "error: $src (copied into the build folder by its CMakeLists.txt) is missing" >>"$sdir/build.log"
      brc=1 failed_step="$file: "
    elif [[ -e $dir/$file && ! -L $dir/$file ]]; then
      echo "# $dir/$file is the sample's own: not replaced by $src" >>"$sdir/build.log"
    else
      echo "ln -sfn $src $dir/$file" >>"$sdir/build.log"
      ln -sfn "$src" "$dir/$file" 2>>"$sdir/build.log" || { brc=1 failed_step="$file: "; }
    fi
  done
  if ((brc == 0)); then
    {
      printf '%q ' "${cmd[@]}"
      echo
    } >>"$sdir/build.log"
    in_background "$dir" "$sdir/build.log" "${cmd[@]}"
    brc=$?
  fi
  if ((brc != 0)) && [[ -z $failed_step ]] && grep -q -E 'relocatable device code|separate compilation|-rdc=true' "$sdir/build.log"; then
    cmd=("${cmd[0]}" -rdc=true "${cmd[@]:1}")
    flags+=(-rdc=true)
    {
      echo
      echo "# needs relocatable device code: again with -rdc=true"
      printf '%q ' "${cmd[@]}"
      echo
    } >>"$sdir/build.log"
    in_background "$dir" "$sdir/build.log" "${cmd[@]}"
    brc=$?
    build="rdc"
  fi
  echo "# exit code $brc, $(($(date +%s) - b_start)) s" >>"$sdir/build.log"
  if ((brc != 0)); then
    line=$(grep -E -m1 'error|cannot find -l' "$sdir/build.log" | sed 's/^[^ ]*\/\([^/]*:[0-9]*\)/\1/')
    record "$i" "FAIL" "-" "-" "fail" "build: $failed_step${line:-exit code $brc}"
    failed_sample "$i"
    continue
  fi
  # The run.
  base=$sdir/run
  stamp=$(lib_stamp)
  run_once "$i" "$base" "$exe"
  rc=$run_rc secs=$run_secs home=$run_home
  attempts=1 again=""
  # Run once more when the libraries were replaced while it ran (a rebuild), or the loader could
  # not use them: after the rebuild is over.
  if ((rc != 0)); then
    if loader_trouble "$base.err"; then
      again="a loader error"
    elif [[ $(lib_stamp) != "$stamp" ]]; then
      again="CudaBridge's libraries changed while it ran"
    fi
  fi
  if [[ -n $again ]]; then
    mv "$base.out" "$base.first.out"; mv "$base.err" "$base.first.err"
    wait_for_quiet_libraries
    run_once "$i" "$base" "$exe"
    rc=$run_rc secs=$run_secs home=$run_home
    attempts=2
  fi
  failed=0 result="pass"
  if ((rc == 124 || rc == 137)); then
    failed=1 result="fail"
  elif ((rc == 2)) && grep -a -q -i -E "$waiver_words" "$base.out" "$base.err"; then
    result="skip"
  elif ((rc != 0)) || grep -q "${failure_words[@]}" "$base.out" "$base.err"; then
    failed=1 result="fail"
  fi
  reason=$(reason_of "$base.out" "$base.err" "$failed")
  if ((rc == 124 || rc == 137)); then
    reason="timeout after ${timeout_s} s; last line: $reason"
  elif ((rc > 128 && rc < 160)); then
    reason="killed by SIG$(signal_name $((rc - 128))); $reason"
  elif ((rc == 0)) && ((failed)); then
    reason="exit 0, but: $(grep -a -h "${failure_words[@]}" "$base.out" "$base.err" | tail -n 1)"
  fi
  # A module CudaBridge refused: its libcuda (a module the program loads itself) and libcudart
  # (newer builds) name the refused instruction on stderr; else ask the Python package
  # (ptx_diagnosis).
  diagnosis="" refusal=""
  module_refusal=$(grep -a -h -m1 'cudabridge libcuda: a module cannot be loaded on this GPU: ' "$base.err" |
    sed 's/.*a module cannot be loaded on this GPU: //; s/^cbModuleLoadData: //; s/^module_load: //')
  if ((failed)) && [[ -n $module_refusal ]]; then
    reason="module refused: $module_refusal [the program: $reason]"
  elif ((failed)) && grep -q -E 'no kernel image|NoKernelImage|code=209\(|invalid device function|cannot run on this GPU' "$base.out" "$base.err"; then
    refusal=$(grep -a -h -m1 'cannot run on this GPU: ' "$base.err" | sed 's/.*cannot run on this GPU: //; s/^cbModuleLoadData: module_load: //')
    # (a machine-code-only fatbin: ptx_diagnosis also says what its PTX would meet)
    if [[ -z $refusal || $refusal == *"machine code"* ]]; then
      diagnosis=$(ptx_diagnosis "$i" "$sdir" "$arch" "$exe")
      [[ -z $refusal ]] && refusal=$(head -n 1 <<<"$diagnosis")
    fi
    if [[ $refusal == *"machine code"* ]]; then
      refusal="the executable's fatbin has machine code only (sm_$arch), no PTX"
      [[ $build == rdc ]] && refusal="$refusal (nvlink's output in an -rdc=true build)"
      ptx_says=$(grep '^its PTX' <<<"$diagnosis" | grep -v ': loads$' | head -n 1)
      [[ -n $ptx_says ]] && refusal="$refusal; ${ptx_says#its PTX (nvcc -ptx): }"
    fi
    [[ -n $refusal ]] && reason="kernel refused: $refusal [the program: $reason]"
  fi
  # The CUDA functions CudaBridge's libraries said they do not support (each says so once).
  unsupported=$(grep -a -h -o -E 'cudabridge (libcuda|cudart): .* is not supported' "$base.err" |
    sed -E 's/^cudabridge (libcuda|cudart): //; s/ is not supported$//' | awk '!seen[$0]++' | paste -s -d '|' | sed 's/|/; /g')
  ((failed)) && [[ -n $unsupported ]] && reason="$reason [not supported by CudaBridge: $unsupported]"
  ((attempts == 2)) && reason="$reason (run again after $again)"
  {
    echo "# in ${s_dir[i]}"
    echo "# CUDABRIDGE_HOME=$home CUDABRIDGE_CUDART_VERBOSE=$cudart_verbose timeout -k 10 $timeout_s $cli run -- $exe"
    echo "# exit code $rc, $secs s, result $result"
    if ((attempts == 2)); then
      echo "===== first attempt ($again; run again) ====="
      with_newline "$base.first.out"
      with_newline "$base.first.err"
    fi
    echo "===== stdout ====="
    with_newline "$base.out"
    echo "===== stderr ====="
    with_newline "$base.err"
    if [[ -n $diagnosis ]]; then
      echo "===== why CudaBridge refuses the kernels (the executable's fatbins loaded with $python_for_ptx; files in $sdir/ptx) ====="
      echo "$diagnosis"
    fi
    if ((failed)) && [[ -f $home/cudabridge.db ]]; then
      echo "===== CudaBridge log records, WARN and above (cudabridge-cli --db $home/cudabridge.db log --level WARN) ====="
      records=$(timeout 60 "$cli" --db "$home/cudabridge.db" log -n 40 --level WARN 2>&1)
      echo "${records:-(none)}"
    fi
  } >"$base.log"
  rm -f "$base.out" "$base.err" "$base.first.out" "$base.first.err"
  case $result in
    pass) n_pass=$((n_pass + 1)) group_pass[${s_group[i]}]=$((group_pass[${s_group[i]}] + 1)) ;;
    fail) failed_sample "$i" ;;
    skip) n_skip=$((n_skip + 1)) skip_counts["waived by the sample (EXIT_WAIVED)"]=$((${skip_counts["waived by the sample (EXIT_WAIVED)"]:-0} + 1))
          reason="waived: $reason" ;;
  esac
  record "$i" "$build" "$rc" "$secs" "$result" "$reason"
done

trap - INT TERM
summary
((n_fail == 0))
