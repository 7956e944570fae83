#!/bin/sh
# Runs randcall inside vkernel and judges the run from outside: the guest's
# supervisor must exit 0 (no worker killed by vkernel), and vkernel must say
# nothing of a panic, an assertion or a sanitizer report.
#
# usage: randcall.sh VKERNEL RANDCALL SEED FIRST END [-u]
# RANDCALL_ASUSER=PATH in the environment: vkernel runs as an unprivileged
# host user, through that tests/integration/asuser.sh.
set -u
[ $# -ge 5 ] || { echo "usage: $0 VKERNEL RANDCALL SEED FIRST END [-u]" >&2; exit 2; }
vk=$1 prog=$2 seed=$3 first=$4 end=$5
u=${6:-}
err=$(mktemp)
trap 'rm -f "$err"' EXIT

as=
if [ -n "${RANDCALL_ASUSER:-}" ]; then
	as=$RANDCALL_ASUSER
fi
# shellcheck disable=SC2086
$as "$vk" run --mem 1G -- "$prog" $u "$seed" "$first" "$end" 2>"$err"
st=$?
cat "$err" | head -c 20000 >&2
if [ "$st" -ne 0 ]; then
	echo "randcall.sh: vkernel exited $st" >&2
	exit 1
fi
if grep -Eq 'panic|AddressSanitizer|LeakSanitizer|runtime error|assertion' "$err"; then
	echo "randcall.sh: vkernel reported an internal error" >&2
	exit 1
fi
grep -q '^randcall: seed' "$err" || { echo "randcall.sh: no summary" >&2; exit 1; }
exit 0
