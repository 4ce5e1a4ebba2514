/* fuzz_spot — the Alibaba SPOT node inventory (traces/nodelist.c, INV_SPOT),
 * grouped into shapes and built into a cluster (traces/invcluster.c) with
 * every GPU model mapped to one catalog GPU. */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_inv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_inventory(data, size, INV_SPOT);
	return 0;
}
