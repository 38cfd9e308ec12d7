#!/usr/bin/env bash
# Copies the device side of the instruction-rate check into CHECKOUT/.rates-carry/ (the
# checkout the device tool sends; ignored through its .git/info/exclude): this folder,
# calibrate/micro_kernels.cu, and BUILD's launchrank with the shared libraries it links.
#   lab/2026-11-29-rates/stage.sh CHECKOUT BUILD
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
co=$1 build=$2
c=$co/.rates-carry
rm -rf "${c:?}" && mkdir -p "$c/lib"
cp "$here/device_run.sh" "$build/clients/cli/launchrank" "$c/"
sed 's|"../../calibrate/micro_kernels.cu"|"micro_kernels.cu"|' "$here/check.cu" > "$c/check.cu"
cp "$here/../../calibrate/micro_kernels.cu" "$c/"
ldd "$build/clients/cli/launchrank" | awk '/=> \//{print $3}' |
  grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' | xargs -I{} cp -L {} "$c/lib/"
grep -qx '/.rates-carry/' "$co/.git/info/exclude" || echo '/.rates-carry/' >> "$co/.git/info/exclude"
du -sh "$c"
