"""Run the binding from the build tree: meson passes VRAMEST_LIBRARY and
PYTHONPATH; fall back to the usual build directory when run by hand."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
if "VRAMEST_LIBRARY" not in os.environ:
    os.environ["VRAMEST_LIBRARY"] = os.path.join(ROOT, "build", "lib", "libvramest.so")
