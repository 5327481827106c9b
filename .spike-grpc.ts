import * as grpc from "@grpc/grpc-js";
import Client, { SubscribeRequest, SubscribeUpdate, GetSlotRequest, GetSlotResponse, CommitmentLevel } from "@triton-one/yellowstone-grpc";
const ser = (T: any) => (m: any) => Buffer.from(T.encode(m).finish());
const de = (T: any) => (b: Buffer) => T.decode(b);
const svc: grpc.ServiceDefinition = {
  Subscribe: { path: "/geyser.Geyser/Subscribe", requestStream: true, responseStream: true,
    requestSerialize: ser(SubscribeRequest), requestDeserialize: (b: Buffer) => { console.log("raw", b.length, b.toString("hex")); return SubscribeRequest.decode(b); },
    responseSerialize: ser(SubscribeUpdate), responseDeserialize: de(SubscribeUpdate) },
  GetSlot: { path: "/geyser.Geyser/GetSlot", requestStream: false, responseStream: false,
    requestSerialize: ser(GetSlotRequest), requestDeserialize: de(GetSlotRequest),
    responseSerialize: ser(GetSlotResponse), responseDeserialize: de(GetSlotResponse) },
};
const server = new grpc.Server();
server.addService(svc, {
  GetSlot: (call: any, cb: any) => cb(null, { slot: "42" }),
  Subscribe: (call: any) => {
    call.on("data", (req: any) => {
      console.log("server got req", JSON.stringify(req));
      let n = 0;
      const t = setInterval(() => { call.write({ filters: ["a"], slot: { slot: String(++n), status: 0 }, createdAt: new Date() }); if (n > 3) clearInterval(t); }, 50);
    });
    call.on("end", () => call.end());
  },
});
const port: number = await new Promise((res, rej) => server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => e ? rej(e) : res(p)));
console.log("port", port);
const c = new Client(`http://127.0.0.1:${port}`, undefined, undefined);
await c.connect();
console.log("slot", await c.getSlot());
const s = await c.subscribe();
let got = 0;
s.on("data", (u: any) => { console.log("update", u.slot?.slot, u.filters); if (++got >= 3) { s.destroy(); server.forceShutdown(); setTimeout(()=>process.exit(0), 100); } });
s.on("error", (e: any) => console.log("err", e));
s.write({ accounts: { a: { account: [], owner: [], filters: [] } }, slots: {}, transactions: {}, transactionsStatus: {}, blocks: {}, blocksMeta: {}, entry: {}, accountsDataSlice: [] });
setTimeout(() => { console.log("TIMEOUT"); process.exit(1); }, 8000);
