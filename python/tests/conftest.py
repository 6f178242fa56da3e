pytest_plugins = ["recall.pytest_plugin"]
