"""`pip install .`: the Python module `recall` (python/recall) with its C++ core built by the
project's CMake (the `_recall` target; Debian packages only, see ci/setup).

    python3 -m venv --system-site-packages .venv     # numpy, torch, pytest from Debian
    .venv/bin/pip install --no-build-isolation .      # no package index needed

RECALL_BUILD_DIR=build reuses an existing CMake build directory (seconds instead of a full build);
otherwise a fresh one is configured in pip's temporary build directory.
"""

import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("RECALL_BUILD_DIR") or os.path.join(os.path.abspath(self.build_temp), "cmake")
        build_dir = os.path.abspath(build_dir)
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            os.makedirs(build_dir, exist_ok=True)
            subprocess.check_call(["cmake", "-S", HERE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                                   f"-DRECALL_PYTHON={sys.executable}"])
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "_recall", "-j", str(os.cpu_count() or 1)])
        built = glob.glob(os.path.join(build_dir, "python", "recall", "_recall*.so"))
        if not built:
            raise RuntimeError(f"no _recall module in {build_dir}/python/recall (is pybind11-dev installed?)")
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built[0], dest)


setup(
    name="recall",
    version="0.1.0",
    description="Numerical verification of associative-memory sequence layers against multiprecision references",
    packages=["recall"],
    package_dir={"": "python"},
    ext_modules=[Extension("recall._recall", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    entry_points={"pytest11": ["recall = recall.pytest_plugin"]},
    python_requires=">=3.9",
)
