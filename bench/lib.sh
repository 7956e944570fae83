# lib.sh - what the micro-benchmark runners share: sourced by ipc.sh and
# net.sh after they set NAME.  It takes the runner's arguments
# ([VKERNEL] [OUTFILE]), makes a scratch directory, builds micro programs
# with the guest compiler, runs them for their ns/op and formats the
# results.

HERE=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
VK=${1:-$HERE/../build/host-linux/vkernel}
OUT=${2:-}
work=$(mktemp -d "/tmp/vk-bench-$NAME.XXXXXX")
trap 'rm -rf "$work"' EXIT

die() { echo "$NAME.sh: $*" >&2; exit 1; }
[ -x "$VK" ] || die "no vkernel at $VK"

CC=${BENCH_CC:-$(command -v musl-gcc || command -v gcc)}
# bench_build PROG...: micro/PROG.c into $work/PROG, static.
bench_build() {
	for p in "$@"; do
		"$CC" -static -O2 -std=c17 -pthread -Wall -Wextra \
		    -Wno-unused-parameter -o "$work/$p" "$HERE/micro/$p.c" ||
			die "cannot build $p"
	done
}

# ns/op from a micro program's "NAME: N iters, X ns/op" line.
nsop() { "$@" 2>/dev/null | sed -n 's/.* \([0-9.]*\) ns\/op.*/\1/p'; }
# Microseconds per op; b/a; whether ratio r is within (le) or above (ge)
# target t.
us() { awk -v x="$1" 'BEGIN { if (x == "") print "FAILED"; else printf "%.1f us", x / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || a == 0) print "–"; else printf "%.2fx", b / a }'; }
met() { awk -v r="${1%x}" -v t="$2" -v ge="$3" 'BEGIN { if (r == "–") print "–"; else if (ge) print (r + 0 >= t ? "yes" : "**no**"); else print (r + 0 <= t ? "yes" : "**no**") }'; }

# bench_report TITLE TABLE: prints the table, and appends it to OUTFILE
# under a dated heading with the command (after the environment settings
# the runner names in BENCH_ENV), when one was given.
bench_report() {
	echo "$2"
	[ -n "$OUT" ] || return 0
	{
		echo
		echo "## $(date -u '+%Y-%m-%d %H:%M:%S UTC'): $1"
		echo
		echo "Command: \`${BENCH_ENV:-}bench/$NAME.sh $VK $OUT\` ($(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg))"
		echo
		echo "$2"
	} >> "$OUT"
}
