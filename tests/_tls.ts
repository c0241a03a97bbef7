/**
 * A throwaway certificate authority for tests of https: made with openssl in a temp directory, never
 * trusted by the machine (a test hands it to the client that should trust it).
 */
import assert from "node:assert/strict";

/** Paths of the CA's certificate and of the leaf's certificate and key, and the leaf's PEM texts. */
export interface CaAndLeaf {
  /** The CA's certificate: what a company's proxy CA is to DENO_CERT or `forward.ca`. */
  ca: string;
  /** The leaf's certificate and key files (`hub serve --cert/--key`). */
  certFile: string;
  keyFile: string;
  /** Their PEM texts (`Deno.serve`'s `cert` and `key`). */
  cert: string;
  key: string;
}

/** A CA in `dir` and a certificate for `localhost` and `127.0.0.1` that it signs (EC P-256, 2 days). */
export async function caAndLeaf(dir: string): Promise<CaAndLeaf> {
  const run = async (...args: string[]) => {
    const out = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "piped" })
      .output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await run(
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=test CA",
  );
  await run("req", ...ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=localhost");
  await Deno.writeTextFile(
    `${dir}/ext.cnf`,
    "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
  );
  const sign = [
    "-in",
    "leaf.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "leaf.pem",
  ];
  await run("x509", "-req", ...sign, "-days", "2", "-extfile", "ext.cnf");
  return {
    ca: `${dir}/ca.pem`,
    certFile: `${dir}/leaf.pem`,
    keyFile: `${dir}/leaf.key`,
    cert: await Deno.readTextFile(`${dir}/leaf.pem`),
    key: await Deno.readTextFile(`${dir}/leaf.key`),
  };
}
