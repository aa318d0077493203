/* Fuzz target: the binary DMX reader, versions 1 to 5 and 9 (input without a header gets
 * one, its version picked by the first byte), and both DMX writers on what it accepts. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_dmx_reader(data, size, true);
}
