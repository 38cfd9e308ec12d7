#!/usr/bin/env bash
# A copy of tests/accuracy/accuracy whose --dump writes every figure at %.17g instead of
# %.5g (the emulation in emulate.py must reproduce `predicted` to 1e-6), built in /tmp
# against build-rel. Prints the program's path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
t=/tmp/sassrt-accuracy
rm -rf $t && mkdir -p $t && cp tests/accuracy/*.c tests/accuracy/*.h $t/
sed -i 's/%\.5g/%.17g/g' $t/acc_report.c
b=build-rel
cc -std=c11 -O2 -D_GNU_SOURCE -pthread -DSOURCE_DIR="\"$root\"" -I$t -I$b/protocol -Iprotocol \
  -Iestimator -I$b/estimator -Icommon -I$b/common -Istore -Icudagen -Icalibrate \
  -I/usr/include/cjson -o $t/accuracy $t/accuracy.c $t/acc_lofo.c $t/acc_report.c $t/acc_sets.c $t/acc_stats.c \
  -Wl,--start-group $b/protocol/liblrprotocol.a $b/estimator/liblrestimator.a \
  $b/common/liblrcommon.a $b/mesh/liblrmesh.a $b/store/liblrstore.a $b/cudagen/liblrcudagen.a \
  $b/calibrate/liblrcalibrate.a -lcjson -lnettle -lisl -lgmp -lm -lsqlite3 -ldl -lmetis \
  -Wl,--end-group
echo $t/accuracy
