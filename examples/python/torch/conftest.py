# the recall_validate fixture (after `pip install .` the pytest11 entry point registers it by itself)
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
pytest_plugins = ["recall.pytest_plugin"]
