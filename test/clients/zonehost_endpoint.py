"""Points Debian's v3 clients at a zonehost node instead of https://api.linode.com.

The URL of interface A comes from ZONEHOST_V3_ENDPOINT (e.g. http://127.0.0.1:8080/api/). Lexicon's linode
provider has no option for its endpoint (it is set in Provider.__init__), so that is the one thing patched;
libcloud takes host and port as driver arguments and needs nothing here. Lexicon's command line also splits
the domain with tldextract, which would download the public suffix list: it uses its bundled copy instead.
"""
import os
from urllib.parse import urlsplit

import tldextract
from lexicon.providers import linode

ENDPOINT = os.environ["ZONEHOST_V3_ENDPOINT"]

_lexicon_init = linode.Provider.__init__


def _init(self, config):
    _lexicon_init(self, config)
    self.api_endpoint = ENDPOINT


linode.Provider.__init__ = _init

_tldextract_init = tldextract.TLDExtract.__init__


def _offline(self, *args, **kwargs):
    kwargs["suffix_list_urls"] = ()
    _tldextract_init(self, *args, **kwargs)


tldextract.TLDExtract.__init__ = _offline


def host_port():
    url = urlsplit(ENDPOINT)
    return url.hostname, url.port
