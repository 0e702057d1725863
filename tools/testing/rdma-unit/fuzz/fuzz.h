/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Common part of the libFuzzer targets.  Each target defines
 * LLVMFuzzerTestOneInput(); FUZZ_CHECK() turns a broken property into a
 * crash, so that libFuzzer saves the input and the run fails.  Kernel
 * warnings are fatal too (as with panic_on_warn).
 */
#ifndef _RDMA_FUZZ_H
#define _RDMA_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../shim/shim.h"

#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "fuzz property broken at %s:%d: %s\n",	\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Called from LLVMFuzzerInitialize() of every target. */
static inline void fuzz_setup(void)
{
	shim_warn_fatal = 1;
	shim_quiet = 1;
}

#endif
