"""lrtests: the command line the unittest files of tests/python share.

    test_X.py PATH/TO/launchrank [unittest options]

The binary (or $LAUNCHRANK_BIN) becomes the module's LAUNCHRANK_BIN; exit 2 without
one, else 0 when every test passed and 1 when one did not.
"""
import os
import sys
import unittest


def main(module_globals):
    """Runs the tests of the calling script (__main__), whose globals are given."""
    args = sys.argv[1:]
    binary = module_globals.get("LAUNCHRANK_BIN", "")
    if args and not args[0].startswith("-"):
        binary = args.pop(0)
    if not binary or not os.access(binary, os.X_OK):
        print("usage: %s PATH/TO/launchrank [unittest options] (or set LAUNCHRANK_BIN); "
              "got %r" % (os.path.basename(sys.argv[0]), binary), file=sys.stderr)
        return 2
    module_globals["LAUNCHRANK_BIN"] = os.path.abspath(binary)
    prog = unittest.main(argv=[sys.argv[0]] + args, exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1
