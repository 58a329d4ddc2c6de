"""Packs the cudabridge package with the extension CMake built (cudabridge._core).

The extension is not compiled here: `bash scripts/build.sh` builds it (with the rest of the
project) into build/python/cudabridge; this copies it next to the Python sources so pip can
install both, offline:  pip install --no-build-isolation ./python  (scripts/python-env.sh).
CUDABRIDGE_BUILD_DIR names another build folder.
"""
import glob
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class build_py_with_core(build_py):
    def run(self):
        super().run()
        build_dir = os.environ.get("CUDABRIDGE_BUILD_DIR", os.path.join(HERE, "..", "build"))
        built = glob.glob(os.path.join(build_dir, "python", "cudabridge", "_core*.so"))
        if not built:
            raise SystemExit(f"cudabridge._core is not built in {build_dir}: run `bash scripts/build.sh` first")
        target = os.path.join(self.build_lib, "cudabridge")
        os.makedirs(target, exist_ok=True)
        for so in built:
            shutil.copy2(so, target)


setup(cmdclass={"build_py": build_py_with_core})
