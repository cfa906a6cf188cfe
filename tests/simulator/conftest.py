

def pytest_configure(config):
    config.addinivalue_line(
        "markers", "dask: starts a local dask cluster (a few seconds); runs in CI"
    )
