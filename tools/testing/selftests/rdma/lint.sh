#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make lint: the kernel style gates on our sources.
#   - checkpatch.pl --strict, taken from Debian's linux-source-6.12 tarball
#     into the ignored .cache/ folder (never committed);
#   - sparse over every module (make C=2);
#   - kernel-doc -Wall on every file, and a kernel-doc comment for every
#     exported function.
# Exits non-zero on any error or warning.
set -u

top=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$top" || exit 1
kdir=${KDIR:-$(ls -d /lib/modules/6.12*/build 2>/dev/null | sort -V | tail -n 1)}
cache=$top/.cache/lint
src_tar=${LINUX_SOURCE_TAR:-$(ls /usr/src/linux-source-6.12.tar.xz 2>/dev/null)}
fail=0

note() { printf 'lint: %s\n' "$*"; }

# C sources and headers we own (test modules included), and Kconfig files.
mapfile -t cfiles < <(git ls-files -co --exclude-standard \
	'drivers/*.[ch]' 'include/*.h' 'tools/testing/selftests/rdma/modules/*.[ch]' \
	'tools/testing/selftests/rdma/ulp/*.[ch]' 'tools/testing/selftests/rdma/bench/*.[ch]' \
	| grep -v '\.mod\.c$' | sort -u)
mapfile -t kconfigs < <(git ls-files -co --exclude-standard 'drivers/*Kconfig' | sort -u)

# --- checkpatch -------------------------------------------------------------
# One finding is let through: rdma_ucm's ABI (librdmacm, stock's answers)
# has ENOSYS for a command or option it does not implement, so its files
# keep the errno checkpatch reserves for system calls.
if [ ! -x "$cache/scripts/checkpatch.pl" ]; then
	if [ -z "$src_tar" ]; then
		note "no linux-source-6.12 tarball (make deps installs it)"
		exit 1
	fi
	mkdir -p "$cache"
	tar -xJf "$src_tar" -C "$cache" --strip-components=1 \
		linux-source-6.12/scripts/checkpatch.pl \
		linux-source-6.12/scripts/spelling.txt \
		linux-source-6.12/scripts/const_structs.checkpatch || exit 1
fi
# checkpatch [OPTION...] -- FILE...: the findings of checkpatch --strict
# in every file, a few files per run and one run per CPU at a time.
checkpatch() {
	local -a opts=()

	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	printf '%s\0' "$@" | xargs -0 -n 16 -P "$(nproc)" "$cache/scripts/checkpatch.pl" \
		--strict --no-tree --terse --show-types \
		--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES "${opts[@]}" -f 2>&1 |
		grep -E '(ERROR|WARNING|CHECK):' | sort
}
cp_out=$(checkpatch -- "${cfiles[@]}" "${kconfigs[@]}" |
	grep -vE '^drivers/infiniband/core/ucma[a-z_]*\.c:[0-9]+: WARNING:ENOSYS:')
if [ -n "$cp_out" ]; then
	printf '%s\n' "$cp_out"
	note "checkpatch --strict: $(printf '%s\n' "$cp_out" | wc -l) findings"
	fail=1
else
	note "checkpatch --strict: clean (${#cfiles[@]} C files, ${#kconfigs[@]} Kconfig)"
fi

# The user-space unit tests and fuzzers follow kernel style too.  Their
# shim/ headers imitate kernel headers (typedefs, attribute macros) and are
# left out; ASSERT_*() returning from the test and libFuzzer's entry point
# names are part of what the code is.
mapfile -t ufiles < <(git ls-files -co --exclude-standard \
	'tools/testing/rdma-unit/*.[ch]' | grep -v '/shim/.*\.h$' | sort -u)
cp_out=$(checkpatch --ignore MACRO_WITH_FLOW_CONTROL,CAMELCASE -- "${ufiles[@]}")
if [ -n "$cp_out" ]; then
	printf '%s\n' "$cp_out"
	note "checkpatch --strict (rdma-unit): $(printf '%s\n' "$cp_out" | wc -l) findings"
	fail=1
else
	note "checkpatch --strict (rdma-unit): clean (${#ufiles[@]} C files)"
fi

# --- sparse -------------------------------------------------------------------
sp_log=$(mktemp)
make -s -C "$top" -j"$(nproc)" C=2 W=1 modules testmods ulp-stock bench-stock >"$sp_log" 2>&1
sp_rc=$?
sp_out=$(grep -E ': (warning|error):' "$sp_log")
if [ $sp_rc -ne 0 ] || [ -n "$sp_out" ]; then
	[ -n "$sp_out" ] && printf '%s\n' "$sp_out" || tail -n 20 "$sp_log"
	note "sparse (C=2) / W=1: failed"
	fail=1
else
	note "sparse (C=2) and W=1: clean"
fi
rm -f "$sp_log"

# --- kernel-doc ---------------------------------------------------------------
kd_out=$("$kdir/scripts/kernel-doc" -none -Wall "${cfiles[@]}" 2>&1)
if [ -n "$kd_out" ]; then
	printf '%s\n' "$kd_out"
	note "kernel-doc -Wall: findings"
	fail=1
fi
undocumented=()
while read -r sym; do
	grep -rqE "^ \* ${sym}(\(\))? - " drivers include || undocumented+=("$sym")
done < <(grep -rhoE 'EXPORT_SYMBOL(_GPL)?\(([a-z0-9_A-Z]+)\)' drivers \
	| sed -E 's/.*\((.*)\)/\1/' | sort -u)
if [ ${#undocumented[@]} -gt 0 ]; then
	note "exported without a kernel-doc comment: ${undocumented[*]}"
	fail=1
else
	note "kernel-doc: clean, every export documented"
fi

exit $fail
