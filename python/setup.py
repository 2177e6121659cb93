"""Builds inputanim._core with the repository's CMake (python/README.md, "Building").

`pip install --no-build-isolation ./python` uses the setuptools, pybind11 and numpy already
installed (Debian's), so it works offline."""

import os
import pathlib
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent.parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = pathlib.Path(self.build_temp).resolve() / "cmake"
        args = [
            "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
            f"-DPython_EXECUTABLE={sys.executable}",
            "-DINPUTANIM_BUILD_PYTHON=ON", "-DINPUTANIM_BUILD_TESTS=OFF",
            "-DINPUTANIM_BUILD_TOOLS=OFF", "-DINPUTANIM_BUILD_EXAMPLES=OFF",
            "-DINPUTANIM_INSTALL=OFF",
        ]
        if shutil.which("ninja"):
            args += ["-G", "Ninja"]
        if shutil.which("ccache"):
            args += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
        args += shlex.split(os.environ.get("INPUTANIM_CMAKE_ARGS", ""))
        subprocess.run(["cmake", *args], check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "inputanim_python"],
                       check=True)
        built = next((build / "python" / "inputanim").glob("_core*.so"))
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(ext_modules=[CMakeExtension("inputanim._core")], cmdclass={"build_ext": CMakeBuild})
