// SPDX-License-Identifier: GPL-2.0
/*
 * Runner of the user-space unit tests: runs every registered test (or those
 * whose "suite.name" contains one of the arguments), prints KTAP and ends
 * with "N passed, N failed".  Exit status 1 if any test failed.
 */
#include <stdarg.h>
#include <stdlib.h>
#include "shim/shim.h"
#include "unit.h"

static struct unit_test *tests;
static unsigned int cur_failures;

void unit_register(struct unit_test *t)
{
	struct unit_test **p = &tests;

	/* Keep file order, and definition order within a file. */
	while (*p && (strcmp((*p)->file, t->file) < 0 ||
		      (!strcmp((*p)->file, t->file) && (*p)->line < t->line)))
		p = &(*p)->next;
	t->next = *p;
	*p = t;
}

bool unit_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	cur_failures++;
	printf("    # %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return false;
}

unsigned int unit_failures(void)
{
	return cur_failures;
}

static bool selected(const struct unit_test *t, int argc, char **argv)
{
	char full[256];
	int i;

	if (argc < 2)
		return true;
	snprintf(full, sizeof(full), "%s.%s", t->suite, t->name);
	for (i = 1; i < argc; i++)
		if (strstr(full, argv[i]))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	unsigned int n = 0, passed = 0, failed = 0;
	struct unit_test *t;

	shim_quiet = !getenv("UNIT_VERBOSE");
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (t = tests; t; t = t->next)
		n += selected(t, argc, argv);
	printf("KTAP version 1\n1..%u\n", n);
	n = 0;
	for (t = tests; t; t = t->next) {
		if (!selected(t, argc, argv))
			continue;
		cur_failures = 0;
		shim_warn_count = 0;
		t->fn();
		n++;
		if (cur_failures) {
			failed++;
			printf("not ok %u %s.%s\n", n, t->suite, t->name);
		} else {
			passed++;
			printf("ok %u %s.%s\n", n, t->suite, t->name);
		}
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
