"""Runs the lexicon command line (python3-lexicon) unchanged, against ZONEHOST_V3_ENDPOINT.

Usage: python3 lexicon_cli.py linode ACTION DOMAIN TYPE [--name ..] [--content ..] --auth-token KEY --output JSON
"""
import sys

import zonehost_endpoint  # noqa: F401  (patches the endpoint before lexicon builds its provider)
from lexicon.cli import main

sys.argv[0] = "lexicon"
main()
