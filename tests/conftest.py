"""Fixtures shared by the tests of the caches."""

from __future__ import annotations

import pytest


@pytest.fixture
def cache_folder(tmp_path, monkeypatch):
    """A cache folder of the test's own (the user's is left alone); its fracas folder, made on first use."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder / "fracas"
