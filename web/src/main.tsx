/** Entry point: the app in #app. */
import { render } from "preact";
import { App } from "./app/App.js";
import "./styles.css";

render(<App />, document.getElementById("app")!);
