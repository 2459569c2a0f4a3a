"""Drives Apache libcloud's Linode DNS driver (python3-libcloud) with api_version 4.0 against the v4 door.

The driver requests Linode's absolute /v4/... paths: only host and port are pointed at zonehost, taken from
ZONEHOST_V4_ENDPOINT (e.g. http://127.0.0.1:8080/v4/). Plain HTTP (secure=False).
Usage: python3 libcloud_dns_v4.py KEY COMMAND [ARGS...]; prints the result as JSON. Commands:
  list-zones | create-zone DOMAIN SOA_EMAIL | get-zone ZONE_ID | update-zone ZONE_ID DOMAIN TTL | delete-zone ZONE_ID
  list-records ZONE_ID | get-record ZONE_ID RECORD_ID | create-record ZONE_ID NAME TYPE DATA [EXTRA_JSON]
  update-record ZONE_ID RECORD_ID NAME DATA | delete-record ZONE_ID RECORD_ID
A libcloud exception is printed as {"error": class name, "message": text} with exit status 3.
"""
import json
import os
import sys
from urllib.parse import urlsplit

from libcloud.dns.drivers.linode import LinodeDNSDriver
from libcloud.dns.types import RecordType

url = urlsplit(os.environ["ZONEHOST_V4_ENDPOINT"])
key, command, *args = sys.argv[1:]
driver = LinodeDNSDriver(key, secure=False, host=url.hostname, port=url.port, api_version="4.0")


def zone_json(z):
    extra = {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in z.extra.items()}
    return {"id": z.id, "domain": z.domain, "type": z.type, "ttl": z.ttl, "extra": extra}


def record_json(r):
    extra = {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in r.extra.items()}
    return {"id": r.id, "name": r.name, "type": r.type, "data": r.data, "ttl": r.ttl, "extra": extra}


def run():
    if command == "list-zones":
        return [zone_json(z) for z in driver.list_zones()]
    if command == "create-zone":
        domain, email = args
        return zone_json(driver.create_zone(domain, type="master", extra={"soa_email": email}))
    if command == "get-zone":
        return zone_json(driver.get_zone(args[0]))
    if command == "update-zone":
        zone_id, domain, ttl = args
        return zone_json(driver.update_zone(driver.get_zone(zone_id), domain=domain, ttl=int(ttl)))
    if command == "delete-zone":
        return driver.delete_zone(driver.get_zone(args[0]))
    if command == "list-records":
        return [record_json(r) for r in driver.list_records(driver.get_zone(args[0]))]
    if command == "get-record":
        return record_json(driver.get_record(args[0], args[1]))
    if command == "create-record":
        zone_id, name, rtype, data, *extra = args
        zone = driver.get_zone(zone_id)
        created = driver.create_record(name, zone, getattr(RecordType, rtype), data, extra=json.loads(extra[0]) if extra else None)
        return record_json(created)
    if command == "update-record":
        zone_id, record_id, name, data = args
        return record_json(driver.update_record(driver.get_record(zone_id, record_id), name=name, data=data))
    if command == "delete-record":
        zone_id, record_id = args
        return driver.delete_record(driver.get_record(zone_id, record_id))
    raise SystemExit(f"unknown command {command}")


try:
    print(json.dumps(run()))
except Exception as e:  # every libcloud error is reported, so the test can assert which one
    if type(e).__module__.startswith("libcloud"):
        print(json.dumps({"error": type(e).__name__, "message": str(e)}))
        sys.exit(3)
    raise
