/* Fuzz target: the keyvalues2 reader (input without a header gets one), and both DMX
 * writers on what it accepts. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_dmx_reader(data, size, false);
}
