"""What `import poolgrad` offers a Python user: the API names, and only those, in dir()."""

import poolgrad


def test_dir_lists_the_api_not_the_implementation_modules():
    names = dir(poolgrad)
    # Widget and check are API too, loaded on first use (they need the optional anywidget),
    # so they stay out of __all__: a star import must not need anywidget.
    assert names == sorted([*poolgrad.__all__, "Widget", "check"])
    for module in ("max_pool", "avg_pool", "windows", "validation", "geometry", "layers", "wire"):
        assert module not in names
    # The modules stay importable for whoever needs them.
    from poolgrad import validation

    assert validation.MAX_ELEMENTS > 0


def test_every_name_in_all_exists_and_star_import_gives_exactly_them():
    namespace = {}
    exec("from poolgrad import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(poolgrad.__all__)
    for name in poolgrad.__all__:
        assert getattr(poolgrad, name) is not None
