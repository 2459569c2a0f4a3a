"""Drives certbot's dns-linode authenticator (python3-certbot-dns-linode) against ZONEHOST_V3_ENDPOINT.

Usage: python3 certbot_linode.py CREDENTIALS_INI perform|cleanup DOMAIN VALIDATION_NAME VALIDATION
Runs the plugin's own _perform/_cleanup (what certbot calls to add and remove the _acme-challenge TXT record),
without contacting any ACME server. Prints {"api_version": N} (the API the plugin chose for the key).
A certbot error is printed as {"error": message} with exit status 3.
"""
import json
import sys
from types import SimpleNamespace

import zonehost_endpoint  # noqa: F401
from certbot import errors
from certbot_dns_linode._internal.dns_linode import Authenticator

credentials, step, domain, validation_name, validation = sys.argv[1:]
config = SimpleNamespace(dns_linode_credentials=credentials, dns_linode_propagation_seconds=0)
auth = Authenticator(config, "dns-linode")
try:
    auth._setup_credentials()
    version = auth._get_linode_client().api_version
    (auth._perform if step == "perform" else auth._cleanup)(domain, validation_name, validation)
except errors.Error as e:
    print(json.dumps({"error": str(e)}))
    sys.exit(3)
print(json.dumps({"api_version": version}))
