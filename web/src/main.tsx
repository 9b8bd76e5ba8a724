import { lazy, StrictMode, Suspense } from "react";
import { createRoot } from "react-dom/client";
import { fragmentParams } from "./connection";
import { narrowConnections } from "./pagePolicy";
import { startTheme } from "./theme";
import "./styles.css";

// Each page loads its own code: a guest never downloads the host's panels, nor the host the guest's handshake.
const HostApp = lazy(() => import("./App").then((module) => ({ default: module.HostApp })));
const GuestPage = lazy(() => import("./join/GuestPage"));
const ReplayPage = lazy(() => import("./replay/ReplayPage"));

// Before anything the room sends is drawn: from here on the page reaches only its own link's servers.
narrowConnections(fragmentParams());
startTheme();
const Page = fragmentParams().has("room") ? GuestPage : fragmentParams().has("replay") ? ReplayPage : HostApp;

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <Suspense fallback={<p className="loading">Loading canvas…</p>}>
      <Page />
    </Suspense>
  </StrictMode>,
);
