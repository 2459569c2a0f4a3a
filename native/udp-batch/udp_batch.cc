// A UDP socket read and written in batches (recvmmsg/sendmmsg), for zonehost's DNS server
// (src/dns/server/udp-batch.ts). It knows nothing of DNS: it receives up to `batch` datagrams per system call
// into one preallocated block, calls JavaScript once per batch with their count, and sends the answers
// JavaScript wrote into a second block back to the senders with one system call. libuv polls the descriptor,
// so the event loop stays in charge. Linux only.
#include <napi.h>
#include <uv.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

namespace {

// Room for the largest UDP datagram, so none is ever cut short.
constexpr size_t kSlot = 65536;
// Per received datagram in `inMeta`: its length and its sender's port.
constexpr int kInFields = 2;
// Per received datagram in `inAddr`: its sender's IPv6 address, an IPv4 one written IPv4-mapped (::ffff:a.b.c.d),
// so JavaScript can tell senders' networks apart without making a string per datagram.
constexpr size_t kAddrBytes = 16;
// Per answer in `outMeta`: the received datagram it answers (its sender is the destination), offset, length.
constexpr int kOutFields = 3;
// Batches read per wake-up at most, so that a flood cannot keep the loop from its other work.
constexpr int kRoundsPerWake = 4;

class UdpBatch : public Napi::ObjectWrap<UdpBatch> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "UdpBatch",
                       {InstanceMethod<&UdpBatch::Start>("start"), InstanceMethod<&UdpBatch::SendTo>("sendTo"),
                        InstanceMethod<&UdpBatch::Address>("address"), InstanceMethod<&UdpBatch::Close>("close")});
  }

  // new UdpBatch({host, port, reusePort, batch, bufferBytes}, onBatch(count) => answers)
  UdpBatch(const Napi::CallbackInfo& info) : Napi::ObjectWrap<UdpBatch>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 2 || !info[0].IsObject() || !info[1].IsFunction()) {
      Napi::TypeError::New(env, "UdpBatch(options, onBatch)").ThrowAsJavaScriptException();
      return;
    }
    Napi::Object opts = info[0].As<Napi::Object>();
    std::string host = opts.Get("host").ToString().Utf8Value();
    int port = opts.Get("port").ToNumber().Int32Value();
    bool reusePort = opts.Get("reusePort").ToBoolean().Value();
    batch_ = opts.Get("batch").ToNumber().Int32Value();
    int bufferBytes = opts.Get("bufferBytes").ToNumber().Int32Value();
    if (batch_ < 1 || batch_ > 1024 || port < 0 || port > 65535) {
      Napi::RangeError::New(env, "batch must be 1-1024 and port 0-65535").ThrowAsJavaScriptException();
      return;
    }
    if (!Open(env, host, port, reusePort, bufferBytes)) return;
    Allocate(env);
    onBatch_ = Napi::Persistent(info[1].As<Napi::Function>());
    context_ = new Napi::AsyncContext(env, "zonehost:udp-batch");
    napi_add_env_cleanup_hook(env, CleanupHook, this);
    hooked_ = true;
  }

  ~UdpBatch() override { Shut(false); }

 private:
  bool Open(Napi::Env env, const std::string& host, int port, bool reusePort, int bufferBytes) {
    sockaddr_storage addr{};
    socklen_t len;
    if (!Parse(host, port, &addr, &len, 0)) {
      Napi::TypeError::New(env, "not an IP address: " + host).ThrowAsJavaScriptException();
      return false;
    }
    family_ = addr.ss_family;
    fd_ = socket(family_, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return Fail(env, "socket");
    int on = 1;
    if (reusePort && setsockopt(fd_, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) < 0) return Fail(env, "SO_REUSEPORT");
    // Capped by net.core.rmem_max / wmem_max: too small a buffer is not an error, only a smaller queue.
    setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &bufferBytes, sizeof bufferBytes);
    setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &bufferBytes, sizeof bufferBytes);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) < 0) return Fail(env, "bind");
    sockaddr_storage bound{};
    socklen_t boundLen = sizeof bound;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &boundLen);
    port_ = ntohs(family_ == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                      : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    return true;
  }

  // Throws an Error like Node's own (code and errno, e.g. EADDRINUSE) and closes the descriptor.
  bool Fail(Napi::Env env, const char* call) {
    int err = errno;
    Napi::Error e = Napi::Error::New(env, std::string(call) + " " + uv_err_name(-err) + ": " + strerror(err));
    e.Set("code", uv_err_name(-err));
    e.Set("errno", Napi::Number::New(env, -err));
    e.ThrowAsJavaScriptException();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    return false;
  }

  // The blocks JavaScript reads and writes: received datagrams and their senders, answers and where they go.
  void Allocate(Napi::Env env) {
    Napi::ArrayBuffer in = Napi::ArrayBuffer::New(env, kSlot * batch_);
    Napi::Uint8Array inAddr = Napi::Uint8Array::New(env, kAddrBytes * batch_);
    Napi::ArrayBuffer out = Napi::ArrayBuffer::New(env, kSlot * batch_);
    Napi::Int32Array inMeta = Napi::Int32Array::New(env, kInFields * batch_);
    Napi::Int32Array outMeta = Napi::Int32Array::New(env, kOutFields * batch_);
    in_ = static_cast<uint8_t*>(in.Data());
    out_ = static_cast<uint8_t*>(out.Data());
    inMeta_ = inMeta.Data();
    inAddr_ = inAddr.Data();
    outMeta_ = outMeta.Data();
    Napi::Object self = Value();
    self.Set("in", in);
    self.Set("out", out);
    self.Set("inMeta", inMeta);
    self.Set("inAddr", inAddr);
    self.Set("outMeta", outMeta);
    self.Set("port", Napi::Number::New(env, port_));
    self.Set("batch", Napi::Number::New(env, batch_));
    // The object keeps the blocks alive; their memory never moves.
    recv_.resize(batch_);
    recvIov_.resize(batch_);
    senders_.resize(batch_);
    send_.resize(batch_);
    sendIov_.resize(batch_);
    for (int i = 0; i < batch_; i++) {
      recvIov_[i] = {in_ + i * kSlot, kSlot};
      recv_[i].msg_hdr = msghdr{};
      recv_[i].msg_hdr.msg_iov = &recvIov_[i];
      recv_[i].msg_hdr.msg_iovlen = 1;
      recv_[i].msg_hdr.msg_name = &senders_[i];
      send_[i].msg_hdr = msghdr{};
      send_[i].msg_hdr.msg_iov = &sendIov_[i];
      send_[i].msg_hdr.msg_iovlen = 1;
    }
  }

  Napi::Value Start(const Napi::CallbackInfo& info) {
    if (fd_ < 0 || poll_) return info.Env().Undefined();
    poll_ = new uv_poll_t;
    uv_loop_t* loop = nullptr;
    napi_get_uv_event_loop(info.Env(), &loop);
    uv_poll_init(loop, poll_, fd_);
    poll_->data = this;
    uv_poll_start(poll_, UV_READABLE, OnReadable);
    return info.Env().Undefined();
  }

  static void OnReadable(uv_poll_t* handle, int status, int) {
    if (status == 0) static_cast<UdpBatch*>(handle->data)->Drain();
  }

  // Reads what is waiting, a batch at a time, and sends each batch's answers.
  void Drain() {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    for (int round = 0; round < kRoundsPerWake && fd_ >= 0; round++) {
      for (int i = 0; i < batch_; i++) recv_[i].msg_hdr.msg_namelen = sizeof(sockaddr_storage);
      int n = recvmmsg(fd_, recv_.data(), batch_, MSG_DONTWAIT, nullptr);
      if (n <= 0) return;
      for (int i = 0; i < n; i++) {
        inMeta_[i * kInFields] = static_cast<int32_t>(recv_[i].msg_len);
        inMeta_[i * kInFields + 1] = SenderPort(i);
        SenderAddress(i, inAddr_ + i * kAddrBytes);
      }
      received_ = n;
      Napi::Value answers = onBatch_.MakeCallback(Value(), {Napi::Number::New(env, n)}, *context_);
      if (env.IsExceptionPending()) {
        napi_fatal_exception(env, env.GetAndClearPendingException().Value());
        return;
      }
      if (answers.IsNumber()) SendAnswers(answers.As<Napi::Number>().Int32Value());
      if (n < batch_) return;
    }
  }

  int SenderPort(int i) const {
    const sockaddr_storage& s = senders_[i];
    return ntohs(s.ss_family == AF_INET6 ? reinterpret_cast<const sockaddr_in6*>(&s)->sin6_port
                                         : reinterpret_cast<const sockaddr_in*>(&s)->sin_port);
  }

  void SenderAddress(int i, uint8_t* to) const {
    const sockaddr_storage& s = senders_[i];
    if (s.ss_family == AF_INET6) {
      memcpy(to, &reinterpret_cast<const sockaddr_in6*>(&s)->sin6_addr, kAddrBytes);
      return;
    }
    memset(to, 0, 10);
    to[10] = to[11] = 0xff;
    memcpy(to + 12, &reinterpret_cast<const sockaddr_in*>(&s)->sin_addr, 4);
  }

  // Sends the first `count` answers of `outMeta`, each to the sender of the datagram it answers. An answer the
  // kernel refuses is skipped; when the send buffer is full the rest are dropped, as a datagram may be.
  void SendAnswers(int count) {
    int n = 0;
    for (int j = 0; j < count && j < batch_; j++) {
      int32_t slot = outMeta_[j * kOutFields], offset = outMeta_[j * kOutFields + 1], length = outMeta_[j * kOutFields + 2];
      if (slot < 0 || slot >= received_ || offset < 0 || length < 0 || static_cast<size_t>(offset) + length > kSlot * batch_) continue;
      sendIov_[n] = {out_ + offset, static_cast<size_t>(length)};
      send_[n].msg_hdr.msg_name = &senders_[slot];
      send_[n].msg_hdr.msg_namelen = recv_[slot].msg_hdr.msg_namelen;
      n++;
    }
    for (int done = 0; done < n && fd_ >= 0;) {
      int sent = sendmmsg(fd_, send_.data() + done, n - done, MSG_DONTWAIT);
      if (sent > 0) done += sent;
      else if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      else if (errno != EINTR) done++;
    }
  }

  // sendTo(buffer, port, address): one datagram, for answers that were not ready with their batch.
  Napi::Value SendTo(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (fd_ < 0 || info.Length() < 3 || !info[0].IsTypedArray()) return Napi::Boolean::New(env, false);
    Napi::Uint8Array data = info[0].As<Napi::Uint8Array>();
    sockaddr_storage to{};
    socklen_t len;
    if (!Parse(info[2].ToString().Utf8Value(), info[1].ToNumber().Int32Value(), &to, &len, family_)) return Napi::Boolean::New(env, false);
    ssize_t sent = sendto(fd_, data.Data(), data.ByteLength(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&to), len);
    return Napi::Boolean::New(env, sent >= 0);
  }

  // address(i): the sender of the i-th datagram of the batch being handled, as Node.js writes addresses.
  Napi::Value Address(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    int i = info[0].ToNumber().Int32Value();
    if (i < 0 || i >= received_) return env.Undefined();
    char text[INET6_ADDRSTRLEN] = "";
    const sockaddr_storage& s = senders_[i];
    if (s.ss_family == AF_INET6) inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&s)->sin6_addr, text, sizeof text);
    else inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&s)->sin_addr, text, sizeof text);
    return Napi::String::New(env, text);
  }

  // An IP address and port as a socket address; on an IPv6 socket an IPv4 address is written v4-mapped.
  static bool Parse(const std::string& host, int port, sockaddr_storage* out, socklen_t* len, int family) {
    in_addr v4;
    in6_addr v6;
    bool isV4 = inet_pton(AF_INET, host.c_str(), &v4) == 1;
    if (!isV4 && inet_pton(AF_INET6, host.c_str(), &v6) != 1) return false;
    if (port < 0 || port > 65535) return false;
    if (isV4 && family != AF_INET6) {
      auto* a = reinterpret_cast<sockaddr_in*>(out);
      a->sin_family = AF_INET;
      a->sin_port = htons(port);
      a->sin_addr = v4;
      *len = sizeof *a;
      return true;
    }
    if (family == AF_INET) return false;
    if (isV4) {
      memset(&v6, 0, sizeof v6);
      v6.s6_addr[10] = v6.s6_addr[11] = 0xff;
      memcpy(&v6.s6_addr[12], &v4, 4);
    }
    auto* a = reinterpret_cast<sockaddr_in6*>(out);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    a->sin6_addr = v6;
    *len = sizeof *a;
    return true;
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    Shut(true);
    return info.Env().Undefined();
  }

  static void CleanupHook(void* self) { static_cast<UdpBatch*>(self)->Shut(false); }

  // Stops polling and closes the socket; `unhook` when the environment is not the one going away.
  void Shut(bool unhook) {
    if (poll_) {
      uv_poll_stop(poll_);
      uv_close(reinterpret_cast<uv_handle_t*>(poll_), [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
      poll_ = nullptr;
    }
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (hooked_) {
      if (unhook) napi_remove_env_cleanup_hook(Env(), CleanupHook, this);
      hooked_ = false;
    }
    delete context_;
    context_ = nullptr;
  }

  int fd_ = -1;
  int family_ = AF_INET;
  int port_ = 0;
  int batch_ = 0;
  int received_ = 0;
  bool hooked_ = false;
  uv_poll_t* poll_ = nullptr;
  uint8_t* in_ = nullptr;
  uint8_t* out_ = nullptr;
  int32_t* inMeta_ = nullptr;
  uint8_t* inAddr_ = nullptr;
  int32_t* outMeta_ = nullptr;
  std::vector<mmsghdr> recv_, send_;
  std::vector<iovec> recvIov_, sendIov_;
  std::vector<sockaddr_storage> senders_;
  Napi::FunctionReference onBatch_;
  Napi::AsyncContext* context_ = nullptr;
};

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("UdpBatch", UdpBatch::Define(env));
  exports.Set("SLOT", Napi::Number::New(env, kSlot));
  return exports;
}

}  // namespace

NODE_API_MODULE(udp_batch, Init)
