#!/usr/bin/env bash
# memory_spaces_configurations.sh: the fast.cl and separable.cl configurations of docs/memory-spaces-evidence.md's three-vendor table, in cl_configurations' format, for tools/vendor_kernels.sh.
#   bash tools/vendor_kernels.sh tools/memory_spaces_configurations.sh build/ms-vendors.md &&
#     cp build/ms-vendors.csv docs/memory-spaces-vendors.csv
# builds exactly the kernels that table shows (these, and every other kernels_cl/ file once) with AMD's and
# Intel's compilers: a few minutes, where the full docs/vendor-resources.md takes an hour on two cores.
exec python3 "$(dirname "${BASH_SOURCE[0]}")/memory_spaces_tables.py" --vendor-configurations
