#!/bin/bash
# ipc.sh - System V semaphore ping-pong between two processes against the
# guest's futex ping-pong between two threads, and between two processes
# on a shared word, natively and inside vkernel in one run (micro
# programs timing themselves in the guest).
# The target: inside vkernel, a semaphore round trip costs at most twice
# a futex round trip.
#
# Usage: bench/ipc.sh [VKERNEL] [OUTFILE]
#   OUTFILE  if given, a dated section with the table is appended to it
# Environment: BENCH_TARGET_MS=1000 (see micro/bench.h).
set -u
NAME=ipc
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
bench_build futex_pingpong futex_procpong sem_pingpong

fp_n=$(nsop "$work/futex_pingpong"); fp_v=$(nsop "$VK" run -- "$work/futex_pingpong")
pp_n=$(nsop "$work/futex_procpong"); pp_v=$(nsop "$VK" run -- "$work/futex_procpong")
sp_n=$(nsop "$work/sem_pingpong"); sp_v=$(nsop "$VK" run -- "$work/sem_pingpong")
r_v=$(ratio "$fp_v" "$sp_v")
met=$(met "$r_v" 2 0)
table=$(cat <<T
| round trip | native | vkernel | vkernel/native |
|---|---:|---:|---:|
| futex ping-pong, two threads | $(us "$fp_n") | $(us "$fp_v") | $(ratio "$fp_n" "$fp_v") |
| futex ping-pong, two processes | $(us "$pp_n") | $(us "$pp_v") | $(ratio "$pp_n" "$pp_v") |
| SysV semaphore ping-pong, two processes | $(us "$sp_n") | $(us "$sp_v") | $(ratio "$sp_n" "$sp_v") |

Inside vkernel the semaphore round trip costs $r_v the threads' futex
one (target ≤ 2x: $met) and $(ratio "$pp_v" "$sp_v") the processes' futex one.
T
)
bench_report "SysV IPC" "$table"
