"""test_device_generated: the committed schema/device.json is, byte for byte, what the
build writes from estimator/device_schema.json.in and estimator/params.def (tools/device_schema.c),
so that a model parameter is declared once, in the table, and the schema clients read
from the source tree follows it.

Usage: test_device_generated.py GENERATED COMMITTED BUILD_DIR
"""
import sys

generated, committed, build = sys.argv[1:4]
if open(generated, "rb").read() != open(committed, "rb").read():
    print("FAIL schema/device.json is not what estimator/params.def generates; regenerate it:\n"
          "  ninja -C %s estimator/device.json && cp %s %s" % (build, generated, committed))
    sys.exit(1)
print("schema/device.json is the generated one")
