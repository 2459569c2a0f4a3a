"""Drives Apache libcloud's Linode DNS driver (python3-libcloud, api_version 3.0) against ZONEHOST_V3_ENDPOINT.

Usage: python3 libcloud_dns.py KEY COMMAND [ARGS...]; prints the result as JSON. Commands:
  list-zones | create-zone DOMAIN SOA_EMAIL | get-zone ZONE_ID | update-zone ZONE_ID DOMAIN TTL | delete-zone ZONE_ID
  list-records ZONE_ID | create-record ZONE_ID NAME TYPE DATA [EXTRA_JSON]
  update-record ZONE_ID RECORD_ID NAME DATA | delete-record ZONE_ID RECORD_ID
A libcloud exception is printed as {"error": class name, "message": text} with exit status 3.
"""
import json
import sys

from zonehost_endpoint import host_port
from libcloud.dns.drivers.linode import LinodeDNSDriver
from libcloud.dns.types import RecordType

host, port = host_port()
key, command, *args = sys.argv[1:]
driver = LinodeDNSDriver(key, secure=False, host=host, port=port, api_version="3.0")


def zone_json(z):
    return {"id": z.id, "domain": z.domain, "type": z.type, "ttl": z.ttl, "extra": z.extra}


def record_json(r):
    return {"id": r.id, "name": r.name, "type": r.type, "data": r.data, "ttl": r.ttl, "extra": r.extra}


def record(zone_id, record_id):
    return driver.get_record(zone_id, record_id)


def run():
    if command == "list-zones":
        return [zone_json(z) for z in driver.list_zones()]
    if command == "create-zone":
        domain, email = args
        return zone_json(driver.create_zone(domain, type="master", extra={"SOA_Email": email}))
    if command == "get-zone":
        return zone_json(driver.get_zone(int(args[0])))
    if command == "update-zone":
        zone_id, domain, ttl = args
        driver.update_zone(driver.get_zone(int(zone_id)), domain=domain, ttl=int(ttl))
        return zone_json(driver.get_zone(int(zone_id)))
    if command == "delete-zone":
        return driver.delete_zone(driver.get_zone(int(args[0])))
    if command == "list-records":
        return [record_json(r) for r in driver.list_records(driver.get_zone(int(args[0])))]
    if command == "create-record":
        zone_id, name, rtype, data, *extra = args
        zone = driver.get_zone(int(zone_id))
        created = driver.create_record(name, zone, getattr(RecordType, rtype), data, extra=json.loads(extra[0]) if extra else None)
        return record_json(created)
    if command == "update-record":
        zone_id, record_id, name, data = args
        return record_json(driver.update_record(record(int(zone_id), int(record_id)), name=name, data=data))
    if command == "delete-record":
        zone_id, record_id = args
        return driver.delete_record(record(int(zone_id), int(record_id)))
    raise SystemExit(f"unknown command {command}")


try:
    print(json.dumps(run()))
except Exception as e:  # every libcloud error is reported, so the test can assert which one
    if type(e).__module__.startswith("libcloud"):
        print(json.dumps({"error": type(e).__name__, "message": str(e)}))
        sys.exit(3)
    raise
