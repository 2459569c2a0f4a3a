// The most one Node.js thread answers over UDP on this machine: every query is sent straight back as its
// own answer (QR set, no records), with none of a DNS server's work. Run by bench/dns beside zonehost and
// knotd: a rate above this is out of reach for any one-thread Node.js server here. Usage: node udp-floor.mjs PORT
import { createSocket } from 'node:dgram';

const socket = createSocket('udp4');
socket.on('message', (msg, peer) => {
  if (msg.length < 12) return;
  msg[2] |= 0x80;
  socket.send(msg, peer.port, peer.address);
});
socket.bind(Number(process.argv[2]), '127.0.0.1');
