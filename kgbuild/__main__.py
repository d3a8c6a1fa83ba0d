from kgbuild.cli import main

main()
