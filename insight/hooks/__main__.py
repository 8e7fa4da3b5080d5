import sys

from insight.hooks.main import main

sys.exit(main(sys.argv[1:]))
