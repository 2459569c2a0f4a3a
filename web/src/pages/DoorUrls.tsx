/**
 * Where each API of this server is, for a key: the base URL of every door (each takes the same keys, with the
 * same scopes) and how it wants the key. The Linode API v4 door is listed with the others.
 */

interface Door {
  name: string;
  path: string;
  key: string;
}

const DOORS: Door[] = [
  { name: 'Interface A (Linode API v3)', path: '/', key: 'the api_key argument' },
  { name: 'Interface B', path: '/v1', key: 'Authorization: Bearer <key>' },
  { name: 'PowerDNS API', path: '/api/v1', key: 'X-API-Key: <key> (server localhost)' },
  { name: 'Linode API v4', path: '/v4', key: 'Authorization: Bearer <key>' },
];

export function DoorUrls({ origin = window.location.origin }: { origin?: string }) {
  return (
    <div className="table-wrap">
      <table>
        <caption>Where to use a key: the base URL of each API</caption>
        <thead>
          <tr>
            <th scope="col">API</th>
            <th scope="col">Base URL</th>
            <th scope="col">The key goes in</th>
          </tr>
        </thead>
        <tbody>
          {DOORS.map((d) => (
            <tr key={d.path}>
              <th scope="row">{d.name}</th>
              <td>
                <code>{`${origin}${d.path}`}</code>
              </td>
              <td>
                <code>{d.key}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
