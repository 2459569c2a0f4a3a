"""Points Debian's Linode clients at a zonehost node instead of https://api.linode.com.

The URL of interface A comes from ZONEHOST_V3_ENDPOINT (e.g. http://127.0.0.1:8080/api/), that of the v4 door
from ZONEHOST_V4_ENDPOINT (e.g. http://127.0.0.1:8080/v4/), when set. Lexicon's linode and linode4 providers
have no option for their endpoint (each sets it in Provider.__init__), so that is the one thing patched;
libcloud takes host and port as driver arguments and needs nothing here. Lexicon's command line also splits
the domain with tldextract, which would download the public suffix list: it uses its bundled copy instead.
"""
import os
from urllib.parse import urlsplit

import tldextract
from lexicon.providers import linode, linode4

ENDPOINT = os.environ["ZONEHOST_V3_ENDPOINT"]
V4_ENDPOINT = os.environ.get("ZONEHOST_V4_ENDPOINT")


def _point(provider, endpoint):
    original = provider.Provider.__init__

    def _init(self, config):
        original(self, config)
        self.api_endpoint = endpoint

    provider.Provider.__init__ = _init


_point(linode, ENDPOINT)
if V4_ENDPOINT:
    _point(linode4, V4_ENDPOINT)

_tldextract_init = tldextract.TLDExtract.__init__


def _offline(self, *args, **kwargs):
    kwargs["suffix_list_urls"] = ()
    _tldextract_init(self, *args, **kwargs)


tldextract.TLDExtract.__init__ = _offline


def host_port():
    url = urlsplit(ENDPOINT)
    return url.hostname, url.port
