"""Graph stores and exports; importable as `kgbuild.loaders`."""
