"""The package's build backend (bindings/python/backend/vramest_build.py),
called as pip calls it: the wheel it writes is well formed (RECORD hashes,
tags, metadata matching the project), bundles the library it was told to or
found, and a missing library is an error that says what to do.
tests/test_python_install.sh builds and installs real wheels with pip."""
import base64
import hashlib
import importlib.util
import os
import re
import shutil
import tarfile
import zipfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PKG = os.path.join(ROOT, "bindings", "python")


@pytest.fixture
def backend(tmp_path, monkeypatch):
    """The backend run from a copy of bindings/python laid out as in a
    checkout, with no library to be found unless a test puts one there."""
    src = tmp_path / "checkout" / "bindings" / "python"
    shutil.copytree(PKG, src, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(src)
    for name in ("VRAMEST_LIBRARY", "VRAMEST_WHEEL_LIBRARY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PKG_CONFIG_LIBDIR", str(tmp_path / "no-pc"))
    monkeypatch.setenv("PKG_CONFIG_PATH", str(tmp_path / "no-pc"))
    spec = importlib.util.spec_from_file_location("vramest_build", src / "backend" / "vramest_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _library():
    path = os.environ.get("VRAMEST_LIBRARY") or os.path.join(ROOT, "build", "lib", "libvramest.so")
    return os.path.realpath(path)


def _project_version():
    with open(os.path.join(ROOT, "meson.build")) as f:
        return re.search(r"version\s*:\s*'([^']+)'", f.read()).group(1)


def _check_record(whl):
    with zipfile.ZipFile(whl) as z:
        names = z.namelist()
        record = [n for n in names if n.endswith(".dist-info/RECORD")]
        assert len(record) == 1
        rows = [line.split(",") for line in z.read(record[0]).decode().splitlines()]
        assert sorted(r[0] for r in rows) == sorted(names)
        for name, digest, size in rows:
            if name == record[0]:
                assert digest == size == ""
                continue
            data = z.read(name)
            want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert digest == "sha256=" + want and int(size) == len(data), name
        return names, {n: z.read(n) for n in names}


def test_wheel_bundles_the_library_it_is_given(backend, tmp_path):
    lib = _library()
    name = backend.build_wheel(str(tmp_path), {"library": lib})
    assert re.fullmatch(r"vramest-%s-py3-none-linux_\w+\.whl" % re.escape(_project_version()), name), name
    names, files = _check_record(tmp_path / name)
    with open(lib, "rb") as f:
        assert files["vramest/libvramest.so.1"] == f.read()
    assert "vramest/__init__.py" in names and "vramest/_lib.py" in names
    assert not any("__pycache__" in n or "backend" in n for n in names)
    meta = files["vramest-%s.dist-info/METADATA" % _project_version()].decode()
    assert "Name: vramest\n" in meta and "Version: %s\n" % _project_version() in meta
    wheel = files["vramest-%s.dist-info/WHEEL" % _project_version()].decode()
    assert "Root-Is-Purelib: false" in wheel and "Tag: py3-none-linux_" in wheel
    # Reproducible: the same inputs give the same bytes.
    again = tmp_path / "again"
    again.mkdir()
    backend.build_wheel(str(again), {"library": lib})
    assert (again / name).read_bytes() == (tmp_path / name).read_bytes()


def test_wheel_finds_the_checkouts_build_directory(backend, tmp_path):
    build_lib = tmp_path / "checkout" / "build" / "lib"
    build_lib.mkdir(parents=True)
    shutil.copy(_library(), build_lib / "libvramest.so.1")
    assert backend.find_library() == (str(build_lib / "libvramest.so.1"), "the checkout's build directory")
    name = backend.build_wheel(str(tmp_path))
    assert "vramest/libvramest.so.1" in _check_record(tmp_path / name)[0]


def test_pure_wheel_and_missing_library(backend, tmp_path, monkeypatch):
    monkeypatch.setenv("VRAMEST_WHEEL_LIBRARY", "none")
    name = backend.build_wheel(str(tmp_path))
    assert name.endswith("-py3-none-any.whl")
    names, files = _check_record(tmp_path / name)
    assert not any("libvramest" in n for n in names)
    monkeypatch.delenv("VRAMEST_WHEEL_LIBRARY")
    with pytest.raises(RuntimeError) as e:
        backend.build_wheel(str(tmp_path))
    for hint in ("meson compile -C build", "VRAMEST_WHEEL_LIBRARY=/path/to/libvramest.so.1",
                 "VRAMEST_WHEEL_LIBRARY=none", "Tried: "):
        assert hint in str(e.value)
    with pytest.raises(RuntimeError, match="is not a file"):
        backend.build_wheel(str(tmp_path), {"library": str(tmp_path / "nothing.so")})


def test_sdist_and_editable(backend, tmp_path):
    name = backend.build_sdist(str(tmp_path))
    with tarfile.open(tmp_path / name) as tar:
        members = tar.getnames()
    base = name[:-len(".tar.gz")]
    for need in ("pyproject.toml", "README.md", "PKG-INFO", "vramest/__init__.py", "backend/vramest_build.py"):
        assert "%s/%s" % (base, need) in members
    name = backend.build_editable(str(tmp_path))
    names, files = _check_record(tmp_path / name)
    assert files["__editable__.vramest.pth"].decode().strip() == os.getcwd()
    assert backend.get_requires_for_build_wheel() == [] and backend.get_requires_for_build_sdist() == []
