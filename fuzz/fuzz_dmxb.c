/* Fuzz target: the binary DMX reader, versions 1 to 5 and 9 (input without a header gets
 * one, its version picked by the first byte), and both DMX writers on what it accepts. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n;
	uint8_t *buf = fuzz_with_header(data, size, true, &n);
	if (!buf) return 0;
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_memory(buf, n, NULL, &err);
	if (dm) {
		fuzz_write_dm(dm);
		smdmx_dm_free(dm);
	}
	free(buf);
	return 0;
}
