#!/bin/bash
# net.sh - the loopback network benchmarks, vkernel next to native in one
# run (micro/netloop.c, timing itself inside the guest): TCP streaming of
# 64 KiB writes between two processes, a 1-byte TCP round trip against the
# same over pipes, and connection set-up against AF_UNIX's.
#
# Usage: bench/net.sh [VKERNEL] [OUTFILE]
#   OUTFILE  if given, a dated section with the table is appended to it
# Environment: BENCH_TARGET_MS=1000 (see micro/bench.h).
set -u
NAME=net
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
bench_build netloop

declare -A n v
for m in stream rr-tcp rr-pipe conn-tcp conn-unix; do
	n[$m]=$(nsop "$work/netloop" "$m")
	v[$m]=$(nsop "$VK" run -- "$work/netloop" "$m")
done

# MB/s of 64 KiB per op.
mbs() { awk -v x="$1" 'BEGIN { if (x == "") print "FAILED"; else printf "%.0f MB/s", 65536 / x * 1000 }'; }

r_st=$(ratio "${v[stream]}" "${n[stream]}")
r_rr=$(ratio "${v[rr-pipe]}" "${v[rr-tcp]}")
r_cn=$(ratio "${v[conn-unix]}" "${v[conn-tcp]}")
table=$(cat <<T
| loopback network | native | vkernel | compared | ratio | target | met |
|---|---:|---:|---|---:|---|---|
| TCP streaming, 64 KiB writes, 2 processes | $(mbs "${n[stream]}") | $(mbs "${v[stream]}") | vkernel/native MB/s | $r_st | ≥ 0.5x | $(met "$r_st" 0.5 1) |
| TCP 1-byte round trip, one connection | $(us "${n[rr-tcp]}") | $(us "${v[rr-tcp]}") | vkernel TCP / vkernel pipe ($(us "${v[rr-pipe]}"); native $(us "${n[rr-pipe]}")) | $r_rr | ≤ 2x | $(met "$r_rr" 2 0) |
| connect + accept + close, TCP | $(us "${n[conn-tcp]}") | $(us "${v[conn-tcp]}") | vkernel TCP / vkernel AF_UNIX ($(us "${v[conn-unix]}"); native $(us "${n[conn-unix]}")) | $r_cn | ≤ 4x | $(met "$r_cn" 4 0) |
T
)
bench_report "loopback network" "$table"
