/**
 * The hub's routes, one entry each (method, `URLPattern` path, handler).
 * @module
 */
import { text } from "../respond.ts";
import { ack } from "./ack.ts";
import { answer } from "./answers.ts";
import { bye } from "./bye.ts";
import { createChannel, deleteChannel, rotateToken } from "./channels.ts";
import { listClients, removeClient } from "./clients.ts";
import { ingest } from "./ingest.ts";
import { poll } from "./poll.ts";
import { type Route, route } from "./route.ts";
import { status } from "./status.ts";

const CHANNEL = "/api/channels/:channel([^/]+)";

/** The hub's routes. */
export const HUB_ROUTES: readonly Route[] = [
  route("GET", "/", "to see the hub is up", () => Promise.resolve(text(200, "hooktap hub"))),
  // Receiving: any method, any path after the channel's id.
  route("*", "/c/:channel([^/]*):rest(.*)", "to send to the channel", ingest),
  // The admin's: create and delete channels, rotate or revoke a token. No endpoint lists channels.
  route("POST", "/api/channels{/}?", "to create a channel", createChannel),
  route("DELETE", CHANNEL, "to delete the channel (admin)", deleteChannel),
  route(
    "POST",
    `${CHANNEL}/token/:op(rotate|revoke)`,
    "to rotate or revoke the channel's token",
    rotateToken,
  ),
  // The channel token's or the admin's.
  route("GET", `${CHANNEL}/clients`, "to list the channel's clients", listClients),
  route("DELETE", `${CHANNEL}/clients/:name([^/]+)`, "to remove a client", removeClient),
  // A client's: status (hello), poll, ack, answers, bye.
  route("GET", CHANNEL, "for the channel's status", status),
  route("GET", `${CHANNEL}/events`, "to poll the channel's events", poll),
  route("POST", `${CHANNEL}/ack`, "to acknowledge events", ack),
  route("POST", `${CHANNEL}/answers/:seq([^/]+)`, "to answer a held sender", answer),
  route("POST", `${CHANNEL}/bye`, "to say the client stops", bye),
];
