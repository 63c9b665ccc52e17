from ..plugin_loader import conventional_plugin

PLUGIN = conventional_plugin("cipher", "CIPHER")
