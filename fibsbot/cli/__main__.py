import sys

from fibsbot.cli.app import main

sys.exit(main())
